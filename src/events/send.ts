import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../shared/logger.js';
import { oneLine, readRejection } from '../upload/response.js';
import { type BackoffSettings, isRetryableStatus, retryDelay } from '../upload/retry-policy.js';
import type { Poster } from '../upload/sender.js';
import type { EventKind } from './kinds.js';

/**
 * Sends behaviour events one request each (contract 4.1), at most `concurrency` in flight.
 * Every request has a fresh `requestId`; every event one `Idempotency-Key` that all its
 * retries repeat, with the identical body, so an event whose answer was lost is not counted twice.
 */

export interface EventToSend {
  file: string;
  row: number;
  line: number;
  kind: EventKind;
  body: string;
  /** The event's Idempotency-Key (src/events/keys.ts); a fresh UUID v4 when absent. */
  idempotencyKey?: string;
}

export type EventOutcome =
  | { status: 'accepted'; event: EventToSend; attempts: number }
  | {
      status: 'rejected' | 'failed';
      event: EventToSend;
      attempts: number;
      httpStatus: number | string;
      message: string;
    };

export interface EventSendSettings {
  concurrency: number;
  retries: number;
  backoff: BackoffSettings;
}

export interface EventSendDeps {
  poster: Poster;
  log: Logger;
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  newId?: () => string;
  /** Aborted on Ctrl-C: no new events are started. */
  interrupt?: AbortSignal;
}

export interface EventSendResult {
  sent: number;
  accepted: number;
  rejected: number;
  failed: number;
  retries: number;
  failures: Extract<EventOutcome, { status: 'rejected' | 'failed' }>[];
  stop?: 'auth' | 'unavailable' | 'interrupted';
}

const defaultSleep = (ms: number, signal: AbortSignal) =>
  delay(ms, undefined, { signal }).then(() => undefined);

function where(e: EventToSend): string {
  return `${e.file} row ${e.row} (line ${e.line}, ${e.kind.type})`;
}

export async function sendEvents(
  events: AsyncIterable<EventToSend>,
  settings: EventSendSettings,
  deps: EventSendDeps,
): Promise<EventSendResult> {
  const random = deps.random ?? Math.random;
  const sleep = deps.sleep ?? defaultSleep;
  const newId = deps.newId ?? randomUUID;
  const stopper = new AbortController();
  const signal = deps.interrupt ? AbortSignal.any([deps.interrupt, stopper.signal]) : stopper.signal;
  const result: EventSendResult = { sent: 0, accepted: 0, rejected: 0, failed: 0, retries: 0, failures: [] };

  const stop = (reason: NonNullable<EventSendResult['stop']>) => {
    result.stop ??= reason;
    stopper.abort();
  };

  async function sendOne(event: EventToSend): Promise<EventOutcome> {
    const idempotencyKey = event.idempotencyKey ?? newId();
    const stopped = (attempt: number): EventOutcome => ({
      status: 'failed',
      event,
      attempts: attempt + 1,
      httpStatus: 'interrupted',
      message: 'not sent: the run stopped',
    });
    for (let attempt = 0; ; attempt++) {
      let status: number | string;
      let message: string;
      let retryAfter: string | string[] | undefined;
      try {
        const answer = await deps.poster.post(
          event.kind.path,
          event.body,
          { requestid: newId(), 'idempotency-key': idempotencyKey },
          signal,
        );
        status = answer.status;
        if (status >= 200 && status < 300) return { status: 'accepted', event, attempts: attempt + 1 };
        message = readRejection(answer.status, answer.body).message;
        retryAfter = answer.headers['retry-after'];
        if (status === 401 || status === 403) {
          stop('auth');
          return { status: 'failed', event, attempts: attempt + 1, httpStatus: status, message };
        }
        // 409: the same key is still being processed (an earlier attempt): wait and ask again.
        if (!isRetryableStatus(status) && status !== 409) {
          return { status: 'rejected', event, attempts: attempt + 1, httpStatus: status, message };
        }
      } catch (err) {
        if (signal.aborted) {
          return stopped(attempt);
        }
        const e = err as { name?: string; code?: string; message?: string };
        status = e.name === 'TimeoutError' ? 'timeout' : 'network';
        message = oneLine(`${e.code ? `${e.code}: ` : ''}${e.message ?? String(err)}`);
      }
      if (attempt >= settings.retries) {
        return {
          status: 'failed',
          event,
          attempts: attempt + 1,
          httpStatus: status,
          message: `${message} (gave up after ${attempt + 1} attempts)`,
        };
      }
      const wait = retryDelay(attempt, retryAfter, settings.backoff, Date.now(), random);
      result.retries++;
      deps.log.info(`retry: ${where(event)} got ${status}; trying again in ${(wait / 1000).toFixed(1)} s`);
      try {
        await sleep(wait, signal);
      } catch {
        return stopped(attempt);
      }
    }
  }

  const record = (o: EventOutcome) => {
    if (o.status === 'accepted') {
      result.accepted++;
      return;
    }
    if (o.status === 'rejected') result.rejected++;
    else result.failed++;
    // Retries ran out: the service is down for now, so stop instead of hammering it (401 already set 'auth').
    if (o.status === 'failed' && o.httpStatus !== 'interrupted') stop('unavailable');
    result.failures.push(o);
    deps.log.error(`${o.status}: ${where(o.event)}: ${o.httpStatus} ${o.message}`);
  };

  const inFlight = new Set<Promise<void>>();
  for await (const event of events) {
    if (signal.aborted) break;
    while (inFlight.size >= settings.concurrency) await Promise.race(inFlight);
    if (signal.aborted) break;
    result.sent++;
    const p: Promise<void> = sendOne(event).then(record, (err: unknown) =>
      record({ status: 'failed', event, attempts: 1, httpStatus: 'error', message: oneLine(String(err)) }),
    );
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  }
  await Promise.all(inFlight);
  if (deps.interrupt?.aborted) result.stop ??= 'interrupted';
  return result;
}
