/**
 * What a run would do, counted as the guard's pass reads the feed (docs/nightly.md, "Before and
 * after the run"): products created, updated, unchanged and refused (invalid rows), which fields
 * the updates change, and the largest price moves. Pure: the pass hands each row's payloads in.
 */

import { priceOf } from '../payload/price.js';
import { isObject } from '../shared/is-object.js';

/** How many of the largest price moves a plan keeps (bounded: memory does not grow with the feed). */
export const LARGEST_MOVES = 10;

export interface PriceMove {
  sku: string;
  from: number;
  to: number;
  /** The move as a share of the old price, signed: -50 is a halving. */
  percent: number;
}

export interface PlanTally {
  /** The feed's rows (row > 0), all shards' alike: the size guards count the feed, not a shard. */
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  /** Invalid rows: the service would never see them. */
  refused: number;
  /** Per changed field (`name`, `offers.price`, ...), how many updates change it. */
  fields: Map<string, number>;
  /** Updates whose price moved by more than the `--price-shock` move (counted for its share). */
  shocked: number;
  /** The largest price moves, largest first, at most LARGEST_MOVES. */
  moves: PriceMove[];
}

export function newTally(): PlanTally {
  return {
    rows: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    refused: 0,
    fields: new Map(),
    shocked: 0,
    moves: [],
  };
}

type Json = Record<string, unknown>;

/**
 * The fields an update changes, by name: a top-level key, or `key.sub` inside an object (so a
 * price change reads `offers.price`, not `offers`). Lists are compared whole (`offers.image`).
 */
export function changedFields(before: Json, after: Json): string[] {
  const out: string[] = [];
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  for (const key of keys) {
    const a = before[key];
    const b = after[key];
    if (isObject(a) && isObject(b)) {
      for (const sub of new Set([...Object.keys(a), ...Object.keys(b)]))
        if (!same(a[sub], b[sub])) out.push(`${key}.${sub}`);
    } else if (!same(a, b)) out.push(key);
  }
  return out.sort();
}

function same(a: unknown, b: unknown): boolean {
  return a === b || JSON.stringify(a) === JSON.stringify(b);
}

/** The move from one price to another, or undefined when the old one is 0 or either is unknown. */
export function priceMove(
  sku: string,
  from: number | undefined,
  to: number | undefined,
): PriceMove | undefined {
  if (from === undefined || to === undefined || from === 0 || from === to) return undefined;
  return { sku, from, to, percent: ((to - from) / from) * 100 };
}

/** Keeps `move` among the `max` largest (by size, either way), largest first. */
export function keepLargest(moves: PriceMove[], move: PriceMove, max = LARGEST_MOVES): void {
  const size = Math.abs(move.percent);
  if (moves.length >= max && size <= Math.abs(moves[moves.length - 1].percent)) return;
  let at = moves.findIndex((m) => Math.abs(m.percent) < size);
  if (at < 0) at = moves.length;
  moves.splice(at, 0, move);
  if (moves.length > max) moves.pop();
}

/**
 * One update counted: its changed fields (when `fields`: `genser plan` says them, an upload's
 * guards do not need them), and its price move (a shock when larger than `shockMove` percent
 * either way).
 */
export function tallyUpdate(
  tally: PlanTally,
  sku: string,
  before: Json,
  after: Json,
  shockMove: number,
  fields = true,
): void {
  if (fields)
    for (const field of changedFields(before, after))
      tally.fields.set(field, (tally.fields.get(field) ?? 0) + 1);
  tallyPrices(tally, sku, priceOf(before), priceOf(after), shockMove);
}

/** One update counted by its prices alone (an upload's guards: the fields are `genser plan`'s). */
export function tallyPrices(
  tally: PlanTally,
  sku: string,
  from: number | undefined,
  to: number | undefined,
  shockMove: number,
): void {
  tally.updated++;
  const move = priceMove(sku, from, to);
  if (!move) return;
  if (Math.abs(move.percent) > shockMove) tally.shocked++;
  keepLargest(tally.moves, move);
}

/** The fields changed, most often changed first (then by name), as `[field, count]`. */
export function fieldCounts(tally: PlanTally): [string, number][] {
  return [...tally.fields].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}
