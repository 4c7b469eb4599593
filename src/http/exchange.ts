import { setTimeout as delay } from 'node:timers/promises';
import type { Logger } from '../shared/logger.js';
import type { Signal } from './adaptive-limit.js';
import type { Pacer, Ticket } from './pacer.js';
import { answerMessage, notServiceAnswer } from './response.js';
import {
  type BackoffSettings,
  classifyStatus,
  mayHaveLanded,
  parseRetryAfter,
  retryDelay,
} from './retry-policy.js';
import type { SendRun, StopReason } from './run.js';
import type { HttpAnswer, Poster } from './sender.js';
import { describeTransportError, type TransportFailure } from './transport-error.js';

/**
 * The one retry loop of products and events: one body, sent until it gets an answer that is
 * not worth retrying, the retries run out, or the run stops. Every retry re-sends the identical
 * body and headers (the same Idempotency-Key), so a request whose answer was lost is not
 * applied twice. What comes back is either the service's answer (2xx, or a refusal of the
 * data) for the caller to read, or an outcome without one: `failed` (the service said it did
 * not take it), `not_sent` (no try got past connecting: DNS, TCP, the proxy, the TLS handshake)
 * or `unconfirmed` (some try may have landed).
 */

export interface ExchangeSettings {
  /** Retries after the first attempt. */
  retries: number;
  backoff: BackoffSettings;
  /** Which key a 401 refused ("API key", "service key") and where to fix it. */
  keyName: string;
  keyHint: string;
  /** Which settings name the URL and path, for answers that say the URL is wrong. */
  urlHint: string;
}

export interface ExchangeDeps {
  poster: Poster;
  log: Logger;
  run: SendRun;
  random?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  now?: () => number;
  /** The host's gate: how many requests at once, and Retry-After pauses for all (./pacer.ts). */
  pacer?: Pacer;
  /** Live counters: called before each request and each retry. */
  onRequest?: () => void;
  onRetry?: () => void;
}

export interface ExchangeRequest {
  path: string;
  body: Buffer | string;
  /** Per request: events need a fresh requestId on every try. */
  headers: () => Record<string, string>;
  /** Names the body in retry lines: `batch 3 (rows 1001-1500)`. */
  label: string;
}

interface Tries {
  attempts: number;
  /** The last HTTP status received, if any. */
  httpStatus?: number;
}

export type Exchanged =
  | (Tries & { kind: 'answer'; verdict: 'ok' | 'refused'; answer: HttpAnswer })
  | (Tries & { kind: 'failed' | 'unconfirmed' | 'not_sent'; status: number | string; message: string });

/** What an answer says about the host's load: 429 and 503 say it is congested. */
function signalOf(status: number): Signal {
  if (status === 429 || status === 503) return 'congested';
  const kind = classifyStatus(status);
  return kind === 'ok' || kind === 'refused' ? 'clean' : 'other';
}

export const defaultSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  delay(ms, undefined, { signal }).then(() => undefined);

const seconds = (ms: number): string =>
  ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;

/** What one try came to, judged apart from the loop that acts on it. */
type Judged =
  | { kind: 'final'; verdict: 'ok' | 'refused' }
  | { kind: 'halt'; reason: StopReason; runMessage: string; hint: string; message: string }
  | { kind: 'retry'; message: string; retryAfter?: string | string[]; mayHaveLanded: boolean };

/** An HTTP answer: the service's verdict, a reason to stop the run, or one to try again. */
function judgeAnswer(answer: HttpAnswer, url: string, settings: ExchangeSettings): Judged {
  const status = answer.status;
  const kind = classifyStatus(status);
  if (kind === 'refused') return { kind: 'final', verdict: 'refused' };
  if (kind === 'ok') {
    const odd = notServiceAnswer(answer);
    if (odd === undefined) return { kind: 'final', verdict: 'ok' };
    return {
      kind: 'halt',
      reason: 'endpoint',
      runMessage: `${url} answered HTTP ${status} with ${odd}, not the service's answer: the URL is probably wrong`,
      hint: settings.urlHint,
      message: `HTTP ${status} with ${odd}: not the service`,
    };
  }
  if (kind === 'auth')
    return {
      kind: 'halt',
      reason: 'auth',
      runMessage: `the server refused the ${settings.keyName} (HTTP ${status}): ${answerMessage(status, answer.body)}`,
      hint: settings.keyHint,
      message: `HTTP ${status}: the ${settings.keyName} was refused`,
    };
  if (kind === 'endpoint') {
    const detail = answerMessage(status, answer.body);
    return {
      kind: 'halt',
      reason: 'endpoint',
      runMessage: `the server answered HTTP ${status} to POST ${url}: ${detail}`,
      hint: settings.urlHint,
      message: `HTTP ${status}: ${detail}`,
    };
  }
  return {
    kind: 'retry',
    message: `HTTP ${status}`,
    retryAfter: answer.headers['retry-after'],
    mayHaveLanded: mayHaveLanded(status),
  };
}

/** A request that got no answer: a network error or timeout, or a host that does not resolve. */
function judgeError(
  failure: TransportFailure,
  url: string,
  reached: boolean,
  settings: ExchangeSettings,
): Exclude<Judged, { kind: 'final' }> {
  // A mistyped host fails the same way every time: a configuration error, said at once. Once
  // the host has answered in this run, a failed lookup is a passing network error.
  if (failure.config)
    return {
      kind: 'halt',
      reason: 'endpoint',
      runMessage: failure.config.message,
      hint: failure.config.hint ?? settings.urlHint,
      message: failure.message,
    };
  if (failure.dns && !reached) {
    const host = new URL(url).hostname;
    return {
      kind: 'halt',
      reason: 'endpoint',
      runMessage: `the host name ${host} does not resolve (${failure.code}): no request reached a server`,
      hint: settings.urlHint,
      message: `${host} does not resolve (${failure.code})`,
    };
  }
  return { kind: 'retry', message: failure.message, mayHaveLanded: failure.mayHaveLanded };
}

export async function exchange(
  req: ExchangeRequest,
  settings: ExchangeSettings,
  deps: ExchangeDeps,
): Promise<Exchanged> {
  const { run, poster } = deps;
  const sleep = deps.sleep ?? defaultSleep;
  const url = poster.url(req.path);
  const tries: Tries = { attempts: 0 };
  // The first try whose answer leaves open that the body landed, and what the last try got.
  let landed: { attempt: number; cause: string } | undefined;
  let last = '';
  let status: number | string = 'none';
  // Whether any try got past connecting: when none did, no byte of the body left (not sent).
  let wrote = false;
  const end = (message: string): Exchanged => {
    if (landed === undefined) return { ...tries, kind: wrote ? 'failed' : 'not_sent', status, message };
    const why = landed.cause === last ? '' : ` (try ${landed.attempt}: ${landed.cause})`;
    return { ...tries, kind: 'unconfirmed', status, message: `${message}; it may have landed${why}` };
  };
  const retries = `${settings.retries} ${settings.retries === 1 ? 'retry' : 'retries'}`;

  for (let attempt = 0; ; attempt++) {
    let ticket: Ticket | undefined;
    try {
      ticket = await deps.pacer?.acquire(run.soft);
    } catch {
      return end(
        attempt === 0
          ? `not sent, the run stopped: ${run.stopMessage}`
          : `not retried, the run stopped: ${last}`,
      );
    }
    // The place on the wire is given back once, with what the try says of the host's load.
    const done = (signal: Signal) => {
      if (ticket) deps.pacer?.release(ticket, signal);
      ticket = undefined;
    };
    tries.attempts++;
    deps.onRequest?.();
    let judged: Judged;
    try {
      const answer = await poster.post(req.path, req.body, req.headers(), run.hard);
      done(signalOf(answer.status));
      run.reached = wrote = true;
      tries.httpStatus = status = answer.status;
      judged = judgeAnswer(answer, url, settings);
      if (judged.kind === 'final') return { ...tries, kind: 'answer', verdict: judged.verdict, answer };
      last = `HTTP ${answer.status}`;
    } catch (err) {
      if (run.hard.aborted) {
        done('other');
        status = last = 'interrupted';
        landed ??= { attempt: tries.attempts, cause: last };
        return end('cut off after Ctrl-C');
      }
      const failure = describeTransportError(err);
      done(failure.status === 'timeout' ? 'congested' : 'other');
      if (failure.mayHaveLanded) wrote = true;
      status = failure.status;
      last = failure.message;
      judged = judgeError(failure, url, run.reached, settings);
      // A run stopped by an answer past the bound: that answer came after the body was taken.
      if (judged.kind === 'halt' && failure.mayHaveLanded)
        landed ??= { attempt: tries.attempts, cause: last };
    }
    if (judged.kind === 'retry' && judged.mayHaveLanded) landed ??= { attempt: tries.attempts, cause: last };
    if (judged.kind === 'halt') {
      run.halt(judged.reason, judged.runMessage, judged.hint);
      return end(judged.message);
    }
    if (attempt >= settings.retries) {
      run.halt(
        'unavailable',
        `the service is unavailable: ${req.label} still failed after ${retries} (${judged.message})`,
        'everything accepted so far stays accepted; run again later, it is safe to re-send',
      );
      return end(`gave up after ${retries}: ${judged.message}`);
    }
    if (run.stopped) return end(`not retried, the run stopped: ${judged.message}`);
    const now = (deps.now ?? Date.now)();
    const wait = retryDelay(attempt, judged.retryAfter, settings.backoff, now, deps.random ?? Math.random);
    // The host asked every client to wait: no request of this run goes to it before then.
    if (parseRetryAfter(judged.retryAfter, now, settings.backoff.retryAfterCapMs) !== undefined)
      deps.pacer?.pause(wait);
    deps.onRetry?.();
    deps.log.warn(
      `${req.label}: ${judged.message}, retry ${attempt + 1}/${settings.retries} in ${seconds(wait)}`,
    );
    try {
      await sleep(wait, run.soft);
    } catch {
      return end(`not retried, the run stopped: ${judged.message}`);
    }
  }
}
