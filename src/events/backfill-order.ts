import { parseDateMs } from '../map/values.js';
import type { Issue } from '../shared/types.js';
import type { OrderMapping, OrderTarget } from './backfill-mapping.js';
import { checkEvent } from './check.js';
import { canonicalJson, eventKey, type KeyOptions, orderIdentity } from './keys.js';
import { type EventKind, kindByType } from './kinds.js';
import { type CheckedEvent, eventIssue } from './source.js';

/**
 * One order of an export, its rows gathered (src/events/backfill.ts), to its events: checked as
 * a whole (time, customer, currency), made into a complete_purchase and, when cancelled, a
 * cancel_purchase, and counted in the summary.
 */

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

export interface Line {
  sku: string;
  name: string;
  price: number;
  quantity: number;
  currency?: string;
}

export interface Draft {
  id: string;
  file: string;
  row: number;
  line: number;
  fields: Partial<Record<OrderTarget, { value: string; row: number; line: number }>>;
  lines: Line[];
  problems: Issue[];
}

export interface OrderContext {
  mapping: OrderMapping;
  source: string | undefined;
  keys: KeyOptions;
  summary: BackfillSummary;
}

/** Money sums and unit prices to 1/10000: enough for every ISO 4217 currency, no float noise. */
export function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}

type PricedLine = Line & { currency: string };

interface Whole {
  time: number;
  cancelledAt: number | undefined;
  user: string;
  lines: PricedLine[];
}

/** The order-level fields (time, customer, currency), or undefined with the problems in `d`. */
function wholeOrder(d: Draft, mapping: OrderMapping): Whole | undefined {
  const problemAt = (at: { row: number; line: number }, column: string, message: string) =>
    d.problems.push({
      severity: 'error',
      code: 'backfill',
      file: d.file,
      row: at.row,
      line: at.line,
      column,
      message,
    });
  const timeOf = (target: 'time' | 'cancelled_at'): number | undefined => {
    const f = d.fields[target];
    if (!f) return undefined;
    const parsed = parseDateMs(f.value.replace(/\s+([+-]\d{2}:?\d{2})$/, '$1'), mapping.zone);
    if (parsed.ok) return parsed.value;
    problemAt(f, mapping.columns[target] ?? target, `${parsed.error.message} (order ${d.id})`);
    return undefined;
  };
  const time = timeOf('time');
  if (!d.fields.time) problemAt(d, mapping.columns.time ?? 'time', `order ${d.id} has no time`);
  const cancelledAt = timeOf('cancelled_at');
  const user = d.fields.user_id?.value ?? d.fields.member_id?.value;
  if (user === undefined)
    problemAt(
      d,
      mapping.columns.user_id ?? mapping.columns.member_id ?? 'user_id',
      `order ${d.id} has no customer (user or member id)`,
    );
  const currency = d.fields.currency?.value.toUpperCase() ?? mapping.currency;
  if (d.lines.some((l) => (l.currency ?? currency) === undefined))
    problemAt(
      d,
      mapping.columns.currency ?? 'currency',
      `order ${d.id} has no currency; map a currency column or set "currency" in the mapping file`,
    );
  if (d.problems.length > 0 || time === undefined || user === undefined) return undefined;
  const lines = d.lines.map((l) => ({ ...l, currency: (l.currency ?? currency)! }));
  return { time, cancelledAt, user, lines };
}

function purchaseEvent(
  type: 'complete_purchase' | 'cancel_purchase',
  ms: number,
  source: string | undefined,
  who: { userId: string; memberId: string; cookieId: string },
  lines: PricedLine[],
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

/** The purchase, and its cancellation when the order was cancelled or refunded. */
function orderEvents(d: Draft, whole: Whole, c: OrderContext, status: string | undefined) {
  const identifiers = {
    userId: d.fields.user_id?.value ?? whole.user,
    memberId: d.fields.member_id?.value ?? whole.user,
    cookieId: d.fields.cookie_id?.value ?? '',
  };
  const cancelled =
    (status !== undefined && c.mapping.cancelStatuses.has(status)) || d.fields.cancelled_at !== undefined;
  const made = [purchaseEvent('complete_purchase', whole.time, c.source, identifiers, whole.lines)];
  if (cancelled)
    made.push(
      purchaseEvent('cancel_purchase', whole.cancelledAt ?? whole.time, c.source, identifiers, whole.lines),
    );
  return made.map((event) => ({ event, check: checkEvent(event) }));
}

function tally(summary: BackfillSummary, kind: EventKind, lines: PricedLine[]): void {
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
}

/** One gathered order to its events, or to its problems when any row or the order is wrong. */
export function* finishOrder(d: Draft, c: OrderContext): Generator<CheckedEvent> {
  const { summary, mapping } = c;
  summary.orders++;
  const status = d.fields.status?.value.toLowerCase();
  if (status !== undefined && mapping.skipStatuses.has(status)) {
    summary.skipped[status] = (summary.skipped[status] ?? 0) + 1;
    return;
  }
  const whole = wholeOrder(d, mapping);
  if (!whole) {
    summary.invalidOrders++;
    for (const p of d.problems) yield { kind: 'problem', problem: p };
    return;
  }
  const checked = orderEvents(d, whole, c, status);
  if (checked.some((x) => !x.check.ok)) {
    summary.invalidOrders++;
    for (const { check } of checked) {
      if (check.ok) continue;
      for (const p of check.problems) {
        const problem = eventIssue(d, check.kind, { ...p, message: `order ${d.id}: ${p.message}` });
        yield { kind: 'problem', problem };
      }
    }
    return;
  }
  for (const { event } of checked) {
    const kind = kindByType(event.type as string)!;
    tally(summary, kind, whole.lines);
    const body = canonicalJson(event);
    const idempotencyKey = eventKey(orderIdentity(kind, d.id), c.keys);
    yield { kind: 'event', send: { file: d.file, row: d.row, line: d.line, kind, body, idempotencyKey } };
  }
}
