import { parseNumber } from '../map/values.js';
import type { Issue, ReadItem, SourceRecord } from '../shared/types.js';
import { canonicalOrderColumns, type OrderMapping, type OrderTarget } from './backfill-mapping.js';
import {
  type BackfillSummary,
  type Draft,
  finishOrder,
  type Line,
  type OrderContext,
  round,
} from './backfill-order.js';
import type { KeyOptions } from './keys.js';
import { type CheckedEvent, readProblem } from './source.js';

/**
 * Order export rows -> purchase events (docs/events.md, "Backfill"). Rows of one order are
 * consecutive in the shops' exports; they are grouped as they stream by, and an order becomes
 * one complete_purchase event at the order's own time with all its lines, plus a
 * cancel_purchase for a cancelled or refunded order. Each event gets a name-based key made from
 * its kind and order id alone (src/events/keys.ts, `orderIdentity`), so running a backfill again
 * (or after a crash, or with `--source` or `--country` spelled otherwise) sends nothing twice.
 * An order with a bad row is not sent at all; its problems name file, row, line and column.
 */

export interface BackfillSettings extends KeyOptions {
  mapping: OrderMapping;
  /** The site address (`source`); the mapping's `source` when not given. */
  source?: string;
}

export type { BackfillSummary, CurrencyAmounts } from './backfill-order.js';

export function emptySummary(): BackfillSummary {
  return {
    rows: 0,
    orders: 0,
    purchases: 0,
    cancellations: 0,
    items: 0,
    quantity: 0,
    amounts: {},
    skipped: {},
    invalidOrders: 0,
  };
}

const ORDER_LEVEL: OrderTarget[] = [
  'time',
  'user_id',
  'member_id',
  'cookie_id',
  'currency',
  'status',
  'cancelled_at',
];

function cellOf(record: SourceRecord, column: string | undefined): string | undefined {
  if (column === undefined) return undefined;
  const v = record.fields[column];
  if (v === undefined || v === null) return undefined;
  const text = (typeof v === 'string' ? v : String(v)).trim();
  return text === '' ? undefined : text;
}

type ProblemAt = (record: SourceRecord, target: OrderTarget | '', message: string, hint?: string) => Issue;

/** One row into its order: the order-level fields it has first, then its line. */
function addRow(draft: Draft, record: SourceRecord, mapping: OrderMapping, problem: ProblemAt): void {
  for (const target of ORDER_LEVEL) {
    const v = cellOf(record, mapping.columns[target]);
    if (v !== undefined && draft.fields[target] === undefined)
      draft.fields[target] = { value: v, row: record.row, line: record.line };
  }
  const line = readLine(record, draft, mapping, problem);
  if (line) draft.lines.push(line);
}

/** Orders of one export, as events to send and problems, in order; `summary` is filled as it goes. */
export async function* backfillEvents(
  items: AsyncIterable<ReadItem>,
  settings: BackfillSettings,
  summary: BackfillSummary = emptySummary(),
): AsyncGenerator<CheckedEvent> {
  const { mapping } = settings;
  const context: OrderContext = {
    mapping,
    source: settings.source ?? mapping.source,
    keys: settings,
    summary,
  };
  const closed = new Set<string>();
  let draft: Draft | undefined;
  const problem: ProblemAt = (record, target, message, hint) => ({
    severity: 'error',
    code: 'backfill',
    file: record.file,
    row: record.row,
    line: record.line,
    ...(target ? { column: mapping.columns[target] ?? target } : {}),
    message,
    ...(hint ? { hint } : {}),
  });

  for await (const item of items) {
    if (item.type === 'issue') {
      if (item.issue.severity !== 'error') continue;
      yield { kind: 'problem', problem: readProblem(item.issue) };
      continue;
    }
    const record = item.record;
    // An export without a preset or mapping: its header names the columns (the first record's).
    if (mapping.canonical && summary.rows === 0)
      mapping.columns = canonicalOrderColumns(record.file, Object.keys(record.fields));
    summary.rows++;
    const id = cellOf(record, mapping.columns.order_id);
    if (id === undefined) {
      yield {
        kind: 'problem',
        problem: problem(record, 'order_id', 'has no order id; the row is not part of any order'),
      };
      continue;
    }
    if (draft && draft.id !== id) {
      yield* finishOrder(draft, context);
      closed.add(draft.id);
      draft = undefined;
    }
    if (!draft) {
      if (closed.has(id)) {
        const message = `belongs to order ${id}, whose rows ended earlier in the file; sort the export by order so that each order's rows are together`;
        yield { kind: 'problem', problem: problem(record, 'order_id', message) };
        continue;
      }
      const { file, row, line } = record;
      draft = { id, file, row, line, fields: {}, lines: [], problems: [] };
    }
    addRow(draft, record, mapping, problem);
  }
  if (draft) yield* finishOrder(draft, context);
}

function readLine(
  record: SourceRecord,
  draft: Draft,
  mapping: OrderMapping,
  problem: ProblemAt,
): Line | undefined {
  const before = draft.problems.length;
  const need = (target: OrderTarget): string | undefined => {
    const v = cellOf(record, mapping.columns[target]);
    if (v === undefined)
      draft.problems.push(
        problem(record, target, `is empty; every order line needs its ${target.replace('_', ' ')}`),
      );
    return v;
  };
  const number = (target: OrderTarget, raw: string | undefined): number | undefined => {
    if (raw === undefined) return undefined;
    const parsed = parseNumber(raw, mapping.number);
    if (parsed.ok) return parsed.value;
    // The separator/currency-sign hint helps only a value with digits in it.
    const hint = parsed.error.hint && /\d/.test(raw) ? parsed.error.hint : undefined;
    draft.problems.push(problem(record, target, parsed.error.message, hint));
    return undefined;
  };
  const sku = need('sku');
  const name = need('name');
  const quantity = number('quantity', need('quantity'));
  if (quantity !== undefined && !(quantity > 0))
    draft.problems.push(problem(record, 'quantity', `must be more than 0; got ${quantity}`));
  let price: number | undefined;
  if (mapping.columns.price) price = number('price', need('price'));
  else {
    const total = number('line_total', need('line_total'));
    if (total !== undefined && quantity !== undefined && quantity > 0) price = round(total / quantity);
  }
  if (
    draft.problems.length > before ||
    sku === undefined ||
    name === undefined ||
    price === undefined ||
    quantity === undefined
  ) {
    return undefined;
  }
  const currency = cellOf(record, mapping.columns.currency)?.toUpperCase();
  return { sku, name, price, quantity, ...(currency ? { currency } : {}) };
}
