import type { EventSendResult, EventToSend } from '../events/send.js';
import { checkedEvents, type EventReadSettings, problemText } from '../events/source.js';
import type { EventsRun } from '../report/events-report.js';
import type { EventsValidateReport } from '../report/events-shapes.js';
import type { Logger } from '../shared/logger.js';
import type { Issue } from '../shared/types.js';
import { untilStopped } from '../shared/until-stopped.js';

/** What the events commands read with: the reading settings and how many problems to keep in detail. */
export type CountedSettings = EventReadSettings & { maxErrors: number };

/**
 * `genser events validate`: every event of the files checked; events counted (a row with problems
 * once), the first `maxErrors` problems kept, all counted.
 */
export async function validateCounted(
  files: string[],
  settings: CountedSettings,
  log: Logger,
): Promise<EventsValidateReport> {
  let events = 0;
  let valid = 0;
  const invalidRows = new Set<string>();
  const problems: Issue[] = [];
  let problemCount = 0;
  for await (const c of checkedEvents(files, settings, log)) {
    if (c.kind === 'event') {
      events++;
      valid++;
      continue;
    }
    problemCount++;
    const rowKey = `${c.problem.file}\0${c.problem.row}`;
    if ((c.problem.row ?? 0) > 0 && !invalidRows.has(rowKey)) {
      events++;
      invalidRows.add(rowKey);
    }
    if (problems.length < settings.maxErrors) problems.push(c.problem);
  }
  return {
    files,
    events: { total: events, valid, invalid: invalidRows.size },
    issues: problems,
    problemCount,
    truncated: problemCount > problems.length,
  };
}

/**
 * `genser events send`'s run: the valid events of the files sent, with the accounting of what was
 * read: invalid events (each problem logged, the first `maxErrors` kept as issues), the last row
 * read, the duration.
 */
export async function sendCounted(
  run: {
    files: string[];
    settings: CountedSettings;
    log: Logger;
    /** Ctrl-C or SIGTERM: read no more, also while a read waits on stdin. */
    interrupt: AbortSignal;
  },
  send: (events: AsyncIterable<EventToSend>) => Promise<EventSendResult>,
): Promise<Omit<EventsRun, 'files' | 'target'>> {
  const { files, settings, log, interrupt } = run;
  const issues: Issue[] = [];
  let problems = 0;
  const invalidRows = new Set<string>();
  let fileErrors = 0;
  let lastRow = 0;
  async function* valid(): AsyncGenerator<EventToSend> {
    for await (const c of untilStopped(checkedEvents(files, settings, log), interrupt)) {
      if (c.kind === 'event') {
        lastRow = c.send.row;
        yield c.send;
        continue;
      }
      const p = c.problem;
      problems++;
      if (p.row !== undefined && p.row > 0) {
        lastRow = p.row;
        invalidRows.add(`${p.file}\0${p.row}`);
      } else fileErrors++;
      if (issues.length < settings.maxErrors) issues.push(p);
      log.error(`invalid, not sent: ${problemText(p)}`);
    }
  }
  const started = Date.now();
  const result = await send(valid());
  return {
    result,
    invalid: invalidRows.size,
    fileErrors,
    issues,
    truncated: problems > issues.length,
    lastRow,
    durationMs: Date.now() - started,
  };
}
