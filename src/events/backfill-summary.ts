import { count, duration, n, outcomeWords } from '../shared/words.js';
import type { BackfillSummary } from './backfill.js';
import type { EventSendResult } from './send.js';

/** What `genser events backfill` reports of its run (docs/events.md, "Backfill"). */

/** The counts of a send, for the --json document. */
export function sentCounts(r: EventSendResult) {
  return {
    sent: r.sent,
    accepted: r.accepted,
    rejected: r.rejected,
    failed: r.failed,
    unconfirmed: r.unconfirmed,
    notSent: r.notSent,
    retries: r.retries,
    requests: r.requests,
  };
}

/** `KRW 1,234,000 purchased, 12,000 cancelled; USD 59.9 purchased`. */
function amountWords(amounts: BackfillSummary['amounts']): string {
  return Object.entries(amounts)
    .map(([currency, a]) => {
      const cancelled = a.cancelled > 0 ? `, ${n(round(a.cancelled))} cancelled` : '';
      return `${currency} ${n(round(a.purchased))} purchased${cancelled}`;
    })
    .join('; ');
}

/** Money sums of decimal prices: no binary tails such as 59.900000000000006. */
const round = (x: number) => Math.round(x * 100) / 100;

/** The end-of-run lines for people (stderr). */
export function backfillSummaryLines(
  summary: BackfillSummary,
  problems: number,
  listed: number,
  sent: EventSendResult | undefined,
  durationMs: number,
): string[] {
  const s = summary;
  const lines = [
    `backfill: ${count(s.rows, 'row')}, ${count(s.orders, 'order')}: ${count(s.purchases, 'purchase')}, ` +
      `${count(s.cancellations, 'cancellation')}, ${count(s.items, 'item')} (${count(s.quantity, 'unit')})`,
  ];
  const amounts = amountWords(s.amounts);
  if (amounts) lines.push(`amounts: ${amounts}`);
  const skipped = Object.entries(s.skipped);
  if (skipped.length > 0)
    lines.push(
      `skipped (never paid): ${skipped.map(([status, k]) => `${count(k, 'order')} ${status}`).join(', ')}`,
    );
  if (s.invalidOrders > 0 || problems > 0)
    lines.push(
      `not sent: ${count(s.invalidOrders, 'order')} with ${count(problems, 'problem')}` +
        (problems > listed ? ` (${n(listed)} listed; raise --max-errors to see more)` : ''),
    );
  if (!sent) {
    lines.push(`dry run: ${count(s.purchases + s.cancellations, 'event')} built and checked, nothing sent`);
    return lines;
  }
  lines.push(
    `events: ${n(sent.sent)} sent: ${outcomeWords(sent)}` +
      `${sent.notSent > 0 ? `; ${count(sent.notSent, 'event')} not sent` : ''}; ` +
      `${count(sent.retries, 'retry', 'retries')}; ${duration(durationMs)}`,
  );
  for (const f of sent.failures.slice(0, 10))
    lines.push(
      `  ${f.kind.replace('_', ' ')}: ${f.file} row ${f.row} (line ${f.line}, ${f.type}): ${f.message}`,
    );
  if (sent.failures.length > 10) lines.push(`  ... and ${count(sent.failures.length - 10, 'more event')}`);
  return lines;
}
