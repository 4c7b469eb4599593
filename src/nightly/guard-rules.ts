import { ExitCode, ExitError, UsageError } from '../shared/errors.js';
import { printable } from '../shared/printable.js';
import type { InvalidBudget } from '../upload/budget.js';
import type { MissingMode } from './rows.js';

/**
 * The guards' rules (docs/nightly.md, "Before and after the run"), pure: what the guard's pass
 * counted in, the guards that trip out, each with one line naming the counts and the flag that
 * overrides it. The pass (./guard.ts) counts; the run refuses or holds back its removals.
 */

/** `--on-guard`: a tripped guard refuses the run (nothing sent), or holds back only the out-of-stock marks. */
export const ON_GUARD = ['refuse', 'hold-removals'] as const;
export type OnGuard = (typeof ON_GUARD)[number];

/** `--price-shock P%:Q%`: more than P% of the known products moving price by more than Q% trips it. */
export interface PriceShock {
  share: number;
  move: number;
}

export interface GuardRules {
  /** `--max-change`: known products changed plus (with --missing out-of-stock) gone. */
  maxChange: InvalidBudget;
  /** `--min-rows`: fewer feed rows trip it (1: an empty feed). */
  minRows: number;
  /** `--min-share`: fewer rows than this percent of the last complete run's trip it (0: off). */
  minShare: number;
  priceShock: PriceShock | 'off';
  /** `--strict`: a column mapped in the last complete run and absent tonight trips it. */
  strict: boolean;
  onGuard: OnGuard;
}

/** What the pass counted. */
export interface GuardCounts {
  rows: number;
  changed: number;
  gone: number;
  known: number;
  /** Updates whose price moved by more than the shock's move. */
  shocked: number;
  /** The feed rows of the last complete run, when one is known. */
  lastRows?: number;
  /** Columns the last complete run mapped that tonight's feed lacks (mapping drift). */
  absentColumns?: string[];
}

export type GuardName = 'min-rows' | 'min-share' | 'max-change' | 'price-shock' | 'strict';

export interface GuardTrip {
  guard: GuardName;
  /** One line: the counts, and the limit of the flag. */
  message: string;
  /** The flag (and value) that lets the run go. */
  hint: string;
}

const n = (x: number) => x.toLocaleString('en-US');
const pct = (x: number) => `${Math.round(x * 10) / 10}%`;

/** An empty or truncated feed: fewer rows than `--min-rows`, or than `--min-share` of the last complete run. */
export function feedSizeTrip(c: GuardCounts, r: GuardRules): GuardTrip | undefined {
  if (c.rows < r.minRows)
    return {
      guard: 'min-rows',
      message: `the feed has ${n(c.rows)} ${c.rows === 1 ? 'row' : 'rows'}, fewer than --min-rows ${n(r.minRows)}`,
      hint: 'check the export; if the feed is meant to be this small, run again with --min-rows 0',
    };
  if (r.minShare > 0 && c.lastRows !== undefined && c.lastRows > 0) {
    const floor = Math.ceil((c.lastRows * r.minShare) / 100);
    if (c.rows < floor)
      return {
        guard: 'min-share',
        message: `the feed has ${n(c.rows)} rows, ${pct((c.rows / c.lastRows) * 100)} of the last complete run's ${n(c.lastRows)}: less than --min-share ${pct(r.minShare)} (${n(floor)})`,
        hint: 'a truncated export? check it; if the feed shrank on purpose, run again with --min-share 0',
      };
  }
  return undefined;
}

/** The mass-change guard: changed plus gone over `--max-change` (a count, or a share of the known products). */
export function massChangeTrip(c: GuardCounts, r: GuardRules, missing: MissingMode): GuardTrip | undefined {
  const limit = r.maxChange;
  const total = c.changed + c.gone;
  const max = limit.kind === 'count' ? limit.max : Math.floor((c.known * limit.max) / 100);
  if (c.known === 0 || total <= max) return undefined;
  const what =
    missing === 'out-of-stock'
      ? `${n(c.changed)} changed and ${n(c.gone)} gone from the feed`
      : `${n(c.changed)} changed`;
  return {
    guard: 'max-change',
    message: `${what} of ${n(c.known)} known products (${n(total)}) is more than --max-change allows (${limit.kind === 'count' ? n(limit.max) : `${limit.max}%`}, ${n(max)})`,
    hint: 'check the feed; if the change is meant, run again with a higher --max-change (e.g. --max-change 100%)',
  };
}

/** A price shock: more than P% of the known products moving price by more than Q%. */
export function priceShockTrip(c: GuardCounts, r: GuardRules): GuardTrip | undefined {
  const shock = r.priceShock;
  if (shock === 'off' || c.known === 0 || c.shocked === 0) return undefined;
  const share = (c.shocked / c.known) * 100;
  if (share <= shock.share) return undefined;
  return {
    guard: 'price-shock',
    message: `${n(c.shocked)} of ${n(c.known)} known products (${pct(share)}) change price by more than ${pct(shock.move)}: more than --price-shock ${pct(shock.share)}:${pct(shock.move)} allows`,
    hint: 'a price column mapped wrong, or cents for units? check the feed; if the prices are meant, run again with --price-shock off',
  };
}

/** Column names from the feed, escaped and listed (at most 10 named). */
function columnList(columns: readonly string[]): string {
  const named = columns.slice(0, 10).map((c) => `"${printable(c)}"`);
  const more = columns.length > 10 ? ` and ${n(columns.length - 10)} more` : '';
  return `${named.join(', ')}${more}`;
}

/** What is said of mapping drift: the columns the last complete run mapped and the feed lacks. */
export function driftMessage(absent: readonly string[]): string {
  const one = absent.length === 1;
  return `${one ? 'column' : 'columns'} ${columnList(absent)} ${one ? 'was' : 'were'} mapped in the last complete run and ${one ? 'is' : 'are'} absent from tonight's feed`;
}

/** The warning line without `--strict`: the run goes on, the fields those columns fed left out. */
export function driftLine(absent: readonly string[]): string {
  return `mapping: ${driftMessage(absent)}: the fields they fed are left out of tonight's payloads (--strict refuses such a run)`;
}

/** Mapping drift under `--strict`: a column mapped in the last complete run is absent tonight. */
export function driftTrip(c: GuardCounts, r: GuardRules): GuardTrip | undefined {
  const absent = c.absentColumns ?? [];
  if (!r.strict || absent.length === 0) return undefined;
  return {
    guard: 'strict',
    message: `${driftMessage(absent)} (--strict)`,
    hint: 'a column renamed or dropped in the export? fix it or the mapping; if it is meant, run again without --strict',
  };
}

/** Every guard that trips, the feed's size first. */
export function guardTrips(c: GuardCounts, r: GuardRules, missing: MissingMode): GuardTrip[] {
  return [feedSizeTrip(c, r), massChangeTrip(c, r, missing), priceShockTrip(c, r), driftTrip(c, r)].filter(
    (t): t is GuardTrip => t !== undefined,
  );
}

/** The refusal of a run: the first guard's line (others named after it) and its hint; exit 6. */
export function guardRefusal(trips: readonly GuardTrip[]): ExitError {
  const [first, ...more] = trips;
  const also = more.length > 0 ? ` (also: ${more.map((t) => `--${t.guard}`).join(', ')})` : '';
  return new ExitError(ExitCode.guard, `${first.message}: nothing was sent${also}`, first.hint);
}

/** The line a run that holds back its removals (`--on-guard hold-removals`) says. */
export function heldLine(trips: readonly GuardTrip[], gone: number): string {
  return `guard: ${trips.map((t) => t.message).join('; ')}: --on-guard hold-removals sends the creates and updates and holds back ${n(gone)} out-of-stock ${gone === 1 ? 'mark' : 'marks'}`;
}

/** `--price-shock`: `20%:50%` -> share 20, move 50; or `off`. */
export function parsePriceShock(raw: unknown, from: string): PriceShock | 'off' {
  const text = String(raw).trim();
  if (text === 'off') return 'off';
  const m = /^(\d+(?:\.\d+)?)%:(\d+(?:\.\d+)?)%$/.exec(text);
  if (!m || Number(m[1]) > 100)
    throw new UsageError(
      `${from} must be P%:Q% (e.g. 20%:50%: more than 20% of the known products moving price by more than 50%) or off; got "${text}"`,
    );
  return { share: Number(m[1]), move: Number(m[2]) };
}
