import { printable } from '../shared/printable.js';

/**
 * What `genser plan` says (docs/nightly.md, "Before and after the run"): the plan as one document
 * (built by src/nightly/plan-report.ts), and its lines for people. Pure; SKUs come from the feed,
 * so they are escaped for the terminal.
 */

export interface PlanDocument {
  target: string;
  files: string[];
  rows: number;
  known: number;
  created: number;
  updated: number;
  unchanged: number;
  refused: number;
  /** Present with --missing out-of-stock. */
  outOfStock?: number;
  alreadyOutOfStock?: number;
  /** Absent from the feed, not yet for `--missing-after` complete runs: not marked tonight. */
  waitingMissing?: number;
  /** Out-of-stock marks a tripped guard holds back (`--on-guard hold-removals`). */
  heldBack?: number;
  fields: Record<string, number>;
  largestPriceMoves: { sku: string; from: number; to: number; percent: number }[];
  guards: {
    /** False: the feed could not be read fully, so only its size is judged (the upload reports the file error). */
    decided: boolean;
    tripped: { guard: string; message: string; hint: string }[];
    onGuard: string;
    /** What the upload would do: send all, send without the out-of-stock marks, or refuse. */
    outcome: 'send' | 'hold-removals' | 'refuse';
  };
  lastCompleteRows?: number;
  /** Source columns the last complete run mapped that this feed lacks (mapping drift; `--strict` trips on it). */
  absentColumns: string[];
  full: boolean;
}

const n = (x: number) => x.toLocaleString('en-US');

/** The plan for people: counts, fields, price moves, then what the guards would do. */
export function planLines(doc: PlanDocument): string[] {
  const sent = doc.full ? 'sent again: --full' : 'not sent';
  const lines = [
    `plan: ${n(doc.rows)} ${doc.rows === 1 ? 'row' : 'rows'} against ${n(doc.known)} known products of ${doc.target}; nothing was sent`,
    `  create        ${n(doc.created)}`,
    `  update        ${n(doc.updated)}`,
    `  unchanged     ${n(doc.unchanged)} (${sent})`,
  ];
  if (doc.outOfStock !== undefined) {
    const held = doc.heldBack !== undefined ? `; ${n(doc.heldBack)} held back: --on-guard hold-removals` : '';
    lines.push(
      `  out of stock  ${n(doc.outOfStock)} (gone from the feed; ${n(doc.alreadyOutOfStock ?? 0)} already out of stock${held}${waiting(doc)})`,
    );
  }
  lines.push(`  refused       ${n(doc.refused)} (invalid rows: never sent; 'genser validate' shows why)`);
  const fields = Object.entries(doc.fields);
  if (fields.length > 0) lines.push(`fields changed: ${fields.map(([f, c]) => `${f} ${n(c)}`).join(', ')}`);
  if (doc.largestPriceMoves.length > 0)
    lines.push(
      `largest price moves: ${doc.largestPriceMoves
        .map((m) => `${printable(m.sku)} ${m.from} -> ${m.to} (${m.percent > 0 ? '+' : ''}${m.percent}%)`)
        .join(', ')}`,
    );
  if (doc.absentColumns.length > 0) lines.push(driftLine(doc.absentColumns));
  lines.push(...guardLines(doc));
  return lines;
}

/** Mapping drift in the plan: the columns (from the feed, escaped), and what the upload would do. */
export function driftLine(absent: readonly string[]): string {
  const named = absent.slice(0, 10).map((c) => `"${printable(c)}"`);
  const more = absent.length > 10 ? ` and ${n(absent.length - 10)} more` : '';
  return `mapping: ${named.join(', ')}${more} mapped in the last complete run, absent from this feed: the fields they fed would be left out (--strict refuses the upload)`;
}

function waiting(doc: PlanDocument): string {
  return doc.waitingMissing ? `; ${n(doc.waitingMissing)} missing for fewer runs than --missing-after` : '';
}

function guardLines(doc: PlanDocument): string[] {
  const g = doc.guards;
  if (doc.known === 0)
    return ['guards: none applies to a first run (nothing known yet); the upload would send the above'];
  const then =
    g.outcome === 'refuse'
      ? 'the upload would refuse the run and send nothing (exit 6)'
      : 'the upload would send the creates and updates and hold back every out-of-stock mark (--on-guard hold-removals)';
  const partly = g.decided
    ? []
    : [
        'guards: the feed could not be read fully: only its size is judged (the upload reports the file error)',
      ];
  if (g.tripped.length === 0) return [...partly, 'guards: none would trip; the upload would send the above'];
  return [...partly, `guards: ${then}:`, ...g.tripped.map((t) => `  --${t.guard}: ${t.message}; ${t.hint}`)];
}
