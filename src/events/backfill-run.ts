import { setTimeout as delay } from 'node:timers/promises';
import { type ReadOptions, readFeed } from '../read/index.js';
import { UsageError } from '../shared/errors.js';
import type { Issue } from '../shared/types.js';
import { type BackfillSettings, type BackfillSummary, backfillEvents, emptySummary } from './backfill.js';
import {
  type EventSendDeps,
  type EventSendResult,
  type EventSendSettings,
  type EventToSend,
  sendEvents,
} from './send.js';

/**
 * `genser events backfill FILE`: an order export read as a feed (CSV, JSON, NDJSON, any encoding),
 * turned into purchase events (src/events/backfill.ts) and sent at most `rate` per second.
 * Resuming after a crash needs no state of its own: every event's key is name-based, so a second
 * run sends the same keys and the service stores nothing twice (docs/events.md, "Backfill").
 */

export interface BackfillRunSettings extends BackfillSettings {
  read: ReadOptions;
  /** Events started per second at most; undefined or 0: no limit. */
  rate?: number;
  send: EventSendSettings;
  /** Build and check the events, send nothing. */
  dryRun?: boolean;
}

export interface BackfillRunDeps extends EventSendDeps {
  stdin?: NodeJS.ReadableStream;
  /** Each problem as it is found (the caller prints or collects them). */
  onProblem?: (problem: Issue) => void;
  /** Each event made, before it is sent (for `-o FILE` or a dry run's listing). */
  onEvent?: (event: EventToSend) => void;
  now?: () => number;
}

export interface BackfillRunResult {
  summary: BackfillSummary;
  problems: number;
  /** Absent on a dry run. */
  sent?: EventSendResult;
}

export async function runBackfill(
  file: string,
  settings: BackfillRunSettings,
  deps: BackfillRunDeps,
): Promise<BackfillRunResult> {
  const source = settings.source ?? settings.mapping.source;
  if (!source) {
    throw new UsageError(
      'backfilled events need the site they come from (the event "source", contract 2.1)',
      'set "source": "https://shop.example.com" in the mapping file, or pass --source URL',
    );
  }
  if (settings.rate !== undefined && !(settings.rate >= 0)) {
    throw new UsageError(`--rate ${settings.rate} is not a number of events per second`, 'e.g. --rate 20');
  }
  const summary = emptySummary();
  let problems = 0;
  async function* events(): AsyncGenerator<EventToSend> {
    const items = readFeed(file, settings.read, deps.log, deps.stdin);
    for await (const c of backfillEvents(items, { ...settings, source }, summary)) {
      if (c.kind === 'problem') {
        problems++;
        deps.onProblem?.(c.problem);
        continue;
      }
      deps.onEvent?.(c.send);
      yield c.send;
    }
  }
  if (settings.dryRun) {
    for await (const _ of events()) {
      // built and checked only
    }
    return { summary, problems };
  }
  const paced = settings.rate ? rateLimited(events(), settings.rate, deps) : events();
  const sent = await sendEvents(paced, settings.send, deps);
  return { summary, problems, sent };
}

/**
 * Lets items through at most `perSecond` a second, spaced evenly from the first: the n-th item
 * waits until start + n / perSecond. The sender pulls an item when it can start one, so this
 * bounds the rate at which events start whatever the concurrency.
 */
export async function* rateLimited<T>(
  items: AsyncIterable<T>,
  perSecond: number,
  deps: {
    now?: () => number;
    sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
    interrupt?: AbortSignal;
  } = {},
): AsyncGenerator<T> {
  const now = deps.now ?? Date.now;
  const sleep =
    deps.sleep ??
    ((ms: number, signal: AbortSignal) => delay(ms, undefined, { signal }).then(() => undefined));
  const signal = deps.interrupt ?? new AbortController().signal;
  const interval = 1000 / perSecond;
  let start: number | undefined;
  let n = 0;
  for await (const item of items) {
    start ??= now();
    const due = start + n * interval;
    const wait = due - now();
    if (wait > 0) {
      try {
        await sleep(wait, signal);
      } catch {
        return; // interrupted: send no more
      }
    }
    n++;
    yield item;
  }
}
