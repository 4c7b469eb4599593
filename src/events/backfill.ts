import { parseDateMs, parseNumber } from '../map/values.js';
import type { ReadItem, SourceRecord } from '../shared/types.js';
import { canonicalOrderColumns, type OrderMapping, type OrderTarget } from './backfill-mapping.js';
import { checkEvent } from './check.js';
import { canonicalJson, eventKey, type KeyOptions, orderIdentity } from './keys.js';
import { kindByType } from './kinds.js';
import { type CheckedEvent, type EventProblemLine, readProblem } from './source.js';

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

export interface CurrencyAmounts {
  purchased: number;
  cancelled: number;
}

export interface BackfillSummary {
  rows: number;
  orders: number;
  /** complete_purchase events made. */
  purchases: number;
  /** cancel_purchase events made. */
  cancellations: number;
  /** Order lines in the purchases, and the units they hold. */
  items: number;
  quantity: number;
  /** Sum of price x quantity per currency. */
  amounts: Record<string, CurrencyAmounts>;
  /** Orders with no event, by status (never paid: pending, failed, ...). */
  skipped: Record<string, number>;
  /** Orders not sent because a row is wrong. */
  invalidOrders: number;
}

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

interface Line {
  sku: string;
  name: string;
  price: number;
  quantity: number;
  currency?: string;
}

interface Draft {
  id: string;
  file: string;
  row: number;
  line: number;
  fields: Partial<Record<OrderTarget, { value: string; row: number; line: number }>>;
  lines: Line[];
  problems: EventProblemLine[];
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

/** Orders of one export, as events to send and problems, in order; `summary` is filled as it goes. */
export async function* backfillEvents(
  items: AsyncIterable<ReadItem>,
  settings: BackfillSettings,
  summary: BackfillSummary = emptySummary(),
): AsyncGenerator<CheckedEvent> {
  const { mapping } = settings;
  const source = settings.source ?? mapping.source;
  const closed = new Set<string>();
  let draft: Draft | undefined;

  const problem = (record: SourceRecord, target: OrderTarget | '', message: string): EventProblemLine => ({
    file: record.file,
    row: record.row,
    line: record.line,
    pointer: target ? (mapping.columns[target] ?? target) : '',
    message,
    code: 'backfill',
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
      yield* finish(draft);
      closed.add(draft.id);
      draft = undefined;
    }
    if (!draft) {
      if (closed.has(id)) {
        yield {
          kind: 'problem',
          problem: problem(
            record,
            'order_id',
            `belongs to order ${id}, whose rows ended earlier in the file; sort the export by order so that each order's rows are together`,
          ),
        };
        continue;
      }
      draft = {
        id,
        file: record.file,
        row: record.row,
        line: record.line,
        fields: {},
        lines: [],
        problems: [],
      };
    }
    for (const target of ORDER_LEVEL) {
      const v = cellOf(record, mapping.columns[target]);
      if (v !== undefined && draft.fields[target] === undefined)
        draft.fields[target] = { value: v, row: record.row, line: record.line };
    }
    const line = readLine(record, draft, mapping, problem);
    if (line) draft.lines.push(line);
  }
  if (draft) yield* finish(draft);

  function* finish(d: Draft): Generator<CheckedEvent> {
    summary.orders++;
    const status = d.fields.status?.value.toLowerCase();
    if (status !== undefined && mapping.skipStatuses.has(status)) {
      summary.skipped[status] = (summary.skipped[status] ?? 0) + 1;
      return;
    }
    const at = (target: 'time' | 'cancelled_at'): number | undefined => {
      const f = d.fields[target];
      if (!f) return undefined;
      const parsed = parseDateMs(f.value.replace(/\s+([+-]\d{2}:?\d{2})$/, '$1'), mapping.zone);
      if (parsed.ok) return parsed.value;
      d.problems.push({
        file: d.file,
        row: f.row,
        line: f.line,
        pointer: mapping.columns[target] ?? target,
        message: `${parsed.error.message} (order ${d.id})`,
        code: 'backfill',
      });
      return undefined;
    };
    const time = at('time');
    if (!d.fields.time) {
      d.problems.push({
        file: d.file,
        row: d.row,
        line: d.line,
        pointer: mapping.columns.time ?? 'time',
        message: `order ${d.id} has no time`,
        code: 'backfill',
      });
    }
    const cancelledAt = at('cancelled_at');
    const user = d.fields.user_id?.value ?? d.fields.member_id?.value;
    if (user === undefined) {
      d.problems.push({
        file: d.file,
        row: d.row,
        line: d.line,
        pointer: mapping.columns.user_id ?? mapping.columns.member_id ?? 'user_id',
        message: `order ${d.id} has no customer (user or member id)`,
        code: 'backfill',
      });
    }
    const currency = d.fields.currency?.value.toUpperCase() ?? mapping.currency;
    if (d.lines.some((l) => (l.currency ?? currency) === undefined)) {
      d.problems.push({
        file: d.file,
        row: d.row,
        line: d.line,
        pointer: mapping.columns.currency ?? 'currency',
        message: `order ${d.id} has no currency; map a currency column or set "currency" in the mapping file`,
        code: 'backfill',
      });
    }
    if (d.problems.length > 0 || time === undefined || user === undefined) {
      summary.invalidOrders++;
      for (const p of d.problems) yield { kind: 'problem', problem: p };
      return;
    }
    const identifiers = {
      userId: d.fields.user_id?.value ?? user,
      memberId: d.fields.member_id?.value ?? user,
      cookieId: d.fields.cookie_id?.value ?? '',
    };
    const lines = d.lines.map((l) => ({ ...l, currency: (l.currency ?? currency)! }));
    const cancelled =
      (status !== undefined && mapping.cancelStatuses.has(status)) || d.fields.cancelled_at !== undefined;
    const made: Record<string, unknown>[] = [
      purchaseEvent('complete_purchase', time, source, identifiers, lines),
    ];
    if (cancelled)
      made.push(purchaseEvent('cancel_purchase', cancelledAt ?? time, source, identifiers, lines));
    const checked = made.map((event) => ({ event, check: checkEvent(event) }));
    const bad = checked.filter((c) => !c.check.ok);
    if (bad.length > 0) {
      summary.invalidOrders++;
      for (const { check } of bad) {
        if (check.ok) continue;
        for (const p of check.problems) {
          yield {
            kind: 'problem',
            problem: {
              file: d.file,
              row: d.row,
              line: d.line,
              type: check.kind?.type,
              ...p,
              message: `order ${d.id}: ${p.message}`,
            },
          };
        }
      }
      return;
    }
    for (const { event } of checked) {
      const kind = kindByType(event.type as string)!;
      const isCancel = kind.type === 'cancel_purchase';
      if (isCancel) summary.cancellations++;
      else {
        summary.purchases++;
        summary.items += lines.length;
      }
      for (const l of lines) {
        summary.amounts[l.currency] ??= { purchased: 0, cancelled: 0 };
        const amounts = summary.amounts[l.currency];
        const amount = l.price * l.quantity;
        if (isCancel) amounts.cancelled = round(amounts.cancelled + amount);
        else {
          amounts.purchased = round(amounts.purchased + amount);
          summary.quantity += l.quantity;
        }
      }
      yield {
        kind: 'event',
        send: {
          file: d.file,
          row: d.row,
          line: d.line,
          kind,
          body: canonicalJson(event),
          idempotencyKey: eventKey(orderIdentity(kind, d.id), settings),
        },
      };
    }
  }
}

function readLine(
  record: SourceRecord,
  draft: Draft,
  mapping: OrderMapping,
  problem: (record: SourceRecord, target: OrderTarget, message: string) => EventProblemLine,
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
    const hint = parsed.error.hint && /\d/.test(raw) ? `; ${parsed.error.hint}` : '';
    draft.problems.push(problem(record, target, `${parsed.error.message}${hint}`));
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

/** Money sums and unit prices to 1/10000: enough for every ISO 4217 currency, no float noise. */
function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

function purchaseEvent(
  type: 'complete_purchase' | 'cancel_purchase',
  ms: number,
  source: string | undefined,
  who: { userId: string; memberId: string; cookieId: string },
  lines: (Line & { currency: string })[],
): Record<string, unknown> {
  const kind = kindByType(type)!;
  return {
    specversion: '1.0.0',
    id: kind.id,
    type,
    time: new Date(ms).toISOString(),
    ...(source !== undefined ? { source } : {}),
    datacontenttype: 'application/ld+json',
    data: {
      '@context': 'https://schema.org/',
      '@type': kind.actionType,
      agent: {
        '@type': 'Person',
        identifier: [
          { '@type': 'PropertyValue', propertyID: 'userId', value: who.userId },
          { '@type': 'PropertyValue', propertyID: 'memberId', value: who.memberId },
          { '@type': 'PropertyValue', propertyID: 'cookieId', value: who.cookieId },
        ],
      },
      object: lines.map((l) => ({
        '@type': 'OrderItem',
        orderedItem: {
          '@type': 'Product',
          sku: l.sku,
          name: l.name,
          offers: { '@type': 'Offer', price: l.price, priceCurrency: l.currency },
        },
        orderQuantity: l.quantity,
      })),
    },
  };
}
