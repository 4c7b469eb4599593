/**
 * The words for what became of a row or an event once sending is over, the same for products
 * and events (docs/upload.md, docs/events.md):
 * - `accepted`: the service took it;
 * - `rejected`: the service refused its data (400, 422, legacy processCode FAIL): fix it;
 * - `failed`: the service said it did not take it (503, 429, 401, ...), or was never reached;
 * - `unconfirmed`: sent, but the answer was lost or ambiguous (a timeout or network error
 *   after the request was written, a 500): it may have landed, and sending it again is safe;
 * - `not_sent`: never put in a request (the run stopped first).
 */
export type Outcome = 'accepted' | 'rejected' | 'failed' | 'unconfirmed' | 'not_sent';
export type NotAccepted = Exclude<Outcome, 'accepted'>;

export interface OutcomeCounts {
  accepted: number;
  rejected: number;
  failed: number;
  unconfirmed: number;
  notSent: number;
}

const KEY: Record<Outcome, keyof OutcomeCounts> = {
  accepted: 'accepted',
  rejected: 'rejected',
  failed: 'failed',
  unconfirmed: 'unconfirmed',
  not_sent: 'notSent',
};

export function noOutcomes(): OutcomeCounts {
  return { accepted: 0, rejected: 0, failed: 0, unconfirmed: 0, notSent: 0 };
}

export function tallyOutcome(counts: OutcomeCounts, outcome: Outcome, n = 1): void {
  counts[KEY[outcome]] += n;
}

export function totalOutcomes(c: OutcomeCounts): number {
  return c.accepted + c.rejected + c.failed + c.unconfirmed + c.notSent;
}
