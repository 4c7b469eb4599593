import { randomUUID } from 'node:crypto';
import { type ExchangeDeps, type ExchangeSettings, exchange } from '../http/exchange.js';
import { InFlight } from '../http/in-flight.js';
import { type NotAccepted, noOutcomes, type OutcomeCounts, tallyOutcome } from '../http/outcome.js';
import { Pacer } from '../http/pacer.js';
import { answerMessage, oneLine } from '../http/response.js';
import type { BackoffSettings } from '../http/retry-policy.js';
import { type RunStop, SendRun } from '../http/run.js';
import type { Poster } from '../http/sender.js';
import { ExitError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { EventKind } from './kinds.js';

/**
 * Sends behaviour events one request each (contract 4.1), at most `concurrency` in flight,
 * through the retry loop products use (src/http/exchange.ts). Every request has a fresh
 * `requestId`; every event one `Idempotency-Key` that all its retries repeat, with the
 * identical body, so an event whose answer was lost is not counted twice. Every event read
 * ends in exactly one outcome (src/http/outcome.ts), as upload's rows do.
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

/** An event that was not accepted, and what became of it. */
export interface EventFailure {
  kind: NotAccepted;
  file: string;
  row: number;
  line: number;
  type: string;
  /** The last HTTP status, or a word (`network`, `timeout`, `interrupted`, `not_sent`, `internal`). */
  status: number | string;
  message: string;
}

export interface EventSendSettings {
  concurrency: number;
  retries: number;
  backoff: BackoffSettings;
  /** After Ctrl-C, requests still in flight get this long before they are cut (default 5 s). */
  graceMs?: number;
}

export interface EventSendDeps {
  poster: Poster;
  log: Logger;
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  newId?: () => string;
  now?: () => number;
  /** Aborted on Ctrl-C: no new events are started. */
  interrupt?: AbortSignal;
}

/**
 * Events read after the run stopped, never sent: one range per file, not one entry per event
 * (the rest of a large input must not fill memory). Their count is in `notSent`.
 */
export interface UnsentRange {
  file: string;
  from: number;
  to: number;
  count: number;
}

/** read = accepted + rejected + failed + unconfirmed + notSent. */
export interface EventSendResult extends OutcomeCounts {
  /** Valid events read (invalid ones never reach the sender). */
  read: number;
  /** Events put in at least one request. */
  sent: number;
  retries: number;
  requests: number;
  /** Events not accepted, in input order (those read after the stop are in `unsent`). */
  failures: EventFailure[];
  /** Events read after the run stopped (auth, outage...), counted as not sent. */
  unsent: UnsentRange[];
  stop?: RunStop;
  /** Requests in flight at most during the run, and the most allowed (--concurrency). */
  concurrency?: { reached: number; max: number };
  /** Whether the input was read to its end (a stop may still come after, from the last events). */
  readToEnd: boolean;
}

/** How the collection host's answers are named in messages. */
const COLLECTION_HOST: Omit<ExchangeSettings, 'retries' | 'backoff'> = {
  keyName: 'service key',
  keyHint:
    'check GENSER_SERVICE_KEY or the --service-key-file contents: the right key for this host, no stray spaces or line breaks',
  urlHint: 'check --base-url (GENSER_BASE_URL)',
};

function where(e: EventToSend): string {
  return `${e.file} row ${e.row} (line ${e.line}, ${e.kind.type})`;
}

function emptyResult(): EventSendResult {
  return {
    read: 0,
    sent: 0,
    ...noOutcomes(),
    retries: 0,
    requests: 0,
    failures: [],
    unsent: [],
    readToEnd: false,
  };
}

/** Sending one event and settling its outcome into the result. */
class EventRequests {
  private readonly exchangeSettings: ExchangeSettings;
  private readonly exchangeDeps: ExchangeDeps;
  private readonly newId: () => string;

  constructor(
    private readonly result: EventSendResult,
    settings: EventSendSettings,
    private readonly deps: EventSendDeps,
    run: SendRun,
    pacer: Pacer,
  ) {
    this.newId = deps.newId ?? randomUUID;
    this.exchangeSettings = { retries: settings.retries, backoff: settings.backoff, ...COLLECTION_HOST };
    this.exchangeDeps = {
      poster: deps.poster,
      log: deps.log,
      run,
      random: deps.random,
      sleep: deps.sleep,
      now: deps.now,
      pacer,
      onRequest: () => result.requests++,
      onRetry: () => result.retries++,
    };
  }

  settle(event: EventToSend, kind: NotAccepted, status: number | string, message: string): void {
    tallyOutcome(this.result, kind);
    const { file, row, line } = event;
    this.result.failures.push({ kind, file, row, line, type: event.kind.type, status, message });
    if (kind !== 'not_sent')
      this.deps.log.warn(`${where(event)}: ${kind} (${describeStatus(status)}): ${message}`);
  }

  async send(event: EventToSend): Promise<void> {
    const idempotencyKey = event.idempotencyKey ?? this.newId();
    const answer = await exchange(
      {
        path: event.kind.path,
        body: event.body,
        headers: () => ({ requestid: this.newId(), 'idempotency-key': idempotencyKey }),
        label: where(event),
      },
      this.exchangeSettings,
      this.exchangeDeps,
    );
    if (answer.kind === 'not_sent') this.result.sent--;
    if (answer.kind !== 'answer') return this.settle(event, answer.kind, answer.status, answer.message);
    if (answer.verdict === 'ok') return tallyOutcome(this.result, 'accepted');
    const { status, body } = answer.answer;
    this.settle(event, 'rejected', status, answerMessage(status, body));
  }
}

export async function sendEvents(
  events: AsyncIterable<EventToSend>,
  settings: EventSendSettings,
  deps: EventSendDeps,
): Promise<EventSendResult> {
  const run = new SendRun(deps.interrupt, settings.graceMs ?? 5000);
  const inFlight = new InFlight(settings.concurrency);
  // Requests on the wire adapt under --concurrency (docs/networks.md, "Sending that adapts").
  const pacer = Pacer.adaptive(settings.concurrency);
  const result = emptyResult();
  const requests = new EventRequests(result, settings, deps, run, pacer);

  const fileOrder = new Map<string, number>();
  try {
    for await (const event of events) {
      result.read++;
      if (!fileOrder.has(event.file)) fileOrder.set(event.file, fileOrder.size);
      if (!run.stopped) await inFlight.slot(() => run.stopped);
      if (run.stopped) {
        // Ctrl-C asks to stop now; any other stop reads the rest, unsent, so that every event
        // of the input is accounted for once (docs/events.md, "Sending").
        if (run.stop?.reason === 'interrupted') {
          requests.settle(event, 'not_sent', 'not_sent', `not sent: ${run.stopMessage}`);
          break;
        }
        unsent(result, event);
        continue;
      }
      result.sent++;
      inFlight.add(
        requests.send(event).catch((err: unknown) => {
          // A bug: the event's outcome is unknown, and the run stops (exit 70) rather than go on.
          requests.settle(event, 'unconfirmed', 'internal', oneLine(String(err)));
          run.halt('internal', oneLine(String(err)), undefined, err);
        }),
      );
    }
    result.readToEnd = run.stop?.reason !== 'interrupted';
  } catch (err) {
    // The input broke mid-run: what was sent stays accounted for and reported.
    const usage = err instanceof ExitError;
    const message = oneLine(err instanceof Error ? err.message : String(err));
    run.halt(usage ? 'input' : 'internal', message, usage ? err.hint : undefined, err);
  } finally {
    await inFlight.drain();
    run.dispose();
  }
  // Sends finish out of order: the failures in input order.
  result.failures.sort((a, b) => fileOrder.get(a.file)! - fileOrder.get(b.file)! || a.row - b.row);
  result.stop = run.stop;
  result.concurrency = pacer.reached;
  return result;
}

function unsent(result: EventSendResult, event: EventToSend): void {
  tallyOutcome(result, 'not_sent');
  const last = result.unsent.at(-1);
  if (last && last.file === event.file) {
    last.to = event.row;
    last.count++;
  } else result.unsent.push({ file: event.file, from: event.row, to: event.row, count: 1 });
}

function describeStatus(status: number | string): string {
  return typeof status === 'number' ? `HTTP ${status}` : status;
}
