import { examplesText } from '../events/examples.js';
import { fixEventsFile } from '../events/fix-file.js';
import { EVENT_KINDS } from '../events/kinds.js';
import { unknownTypeHint } from '../events/quirks.js';
import { type EventSendResult, type EventToSend, sendEvents } from '../events/send.js';
import {
  checkedEvents,
  type EventProblemLine,
  type EventReadSettings,
  problemText,
} from '../events/source.js';
import { stopExitCode } from '../http/run.js';
import { UndiciSender } from '../http/sender.js';
import { type EventsRun, eventsReport, eventsSummaryLines } from '../report/events-report.js';
import type { EventIssue, EventsValidateReport } from '../report/events-shapes.js';
import type { Reporter } from '../report/reporters.js';
import { ExitCode, ExitError, UsageError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { packageVersion } from '../shared/paths.js';
import { redact } from '../shared/secrets.js';
import type { EncodingName, InputType } from '../shared/types.js';
import { count, n } from '../shared/words.js';
import type { BackendChoice } from '../storage/sqlite.js';
import type { CommandContext } from './context.js';
import { finishReports, reportersOf } from './reporting.js';

/** The actions of `genser events ...`: reading, checking, sending, and what they print. */

/** What the events commands read from the resolved options. */
export interface EventsSettings {
  json?: boolean;
  list?: boolean;
  eventType?: string;
  encoding?: EncodingName;
  inputType?: InputType;
  maxErrors?: number;
  baseUrl?: string;
  concurrency?: number;
  retries?: number;
  retryBase?: number;
  retryCap?: number;
  /** Seconds. */
  timeout?: number;
  sandbox?: boolean;
  sqlite?: BackendChoice;
  newKeys?: boolean;
  fix?: boolean;
  output?: string;
  report?: string;
  reporter?: string[];
}

export async function runExample(
  type: string | undefined,
  flags: EventsSettings,
  ctx: CommandContext,
): Promise<number> {
  if (flags.list) {
    for (const k of EVENT_KINDS) ctx.stdout.write(`${k.type.padEnd(22)} POST ${k.path}\n`);
    return ExitCode.ok;
  }
  const text = examplesText(type, { json: flags.json });
  if (text === undefined)
    throw new UsageError(`unknown event type "${type}"`, unknownTypeHint(type as string));
  ctx.stdout.write(text);
  return ExitCode.ok;
}

interface ReadSettings extends EventReadSettings {
  maxErrors: number;
}

function readSettings(flags: EventsSettings): ReadSettings {
  return {
    encoding: flags.encoding ?? 'auto',
    inputType: flags.inputType,
    forcedType: flags.eventType,
    newKeys: flags.newKeys === true,
    maxErrors: flags.maxErrors ?? 20,
  };
}

export async function runValidateEvents(
  files: string[],
  flags: EventsSettings,
  ctx: CommandContext,
): Promise<number> {
  const log = ctx.log;
  const settings = readSettings(flags);
  if (flags.fix) return fixFile(files, flags, settings, ctx);
  const reporters = reportersOf(flags, ctx);
  let events = 0;
  let valid = 0;
  const invalidRows = new Set<string>();
  const problems: EventProblemLine[] = [];
  let problemCount = 0;
  const counted = new Set<string>();
  for await (const c of checkedEvents(files, settings, log)) {
    if (c.kind === 'event') {
      events++;
      valid++;
      continue;
    }
    problemCount++;
    const rowKey = `${c.problem.file}\0${c.problem.row}`;
    if (c.problem.row > 0 && !counted.has(rowKey)) {
      counted.add(rowKey);
      events++;
      invalidRows.add(rowKey);
    }
    if (problems.length < settings.maxErrors) problems.push(c.problem);
  }
  const truncated = problemCount > problems.length;
  const report: EventsValidateReport = {
    files,
    events: { total: events, valid, invalid: invalidRows.size },
    issues: problems,
    problemCount,
    truncated,
  };
  finishReports(reporters, { command: 'events validate', report }, ctx, () => {
    for (const p of problems) log.error(problemText(p));
    if (truncated)
      log.info(
        `... and ${count(problemCount - problems.length, 'more problem')} (raise --max-errors to see them)`,
      );
    log.info(`${count(events, 'event')}: ${n(valid)} valid, ${n(invalidRows.size)} invalid`);
  });
  return problemCount > 0 ? ExitCode.data : ExitCode.ok;
}

/** `events validate --fix -o FILE`: a corrected copy of one file, and what was changed. */
async function fixFile(
  files: string[],
  flags: EventsSettings,
  settings: ReadSettings,
  ctx: CommandContext,
): Promise<number> {
  if (!flags.output) throw new UsageError('--fix needs -o FILE: the corrected copy is written there');
  if (files.length !== 1) throw new UsageError('--fix corrects one file at a time', 'name one events file');
  const result = await fixEventsFile(files[0], flags.output, settings, ctx.log);
  if (flags.json) ctx.stdout.write(`${JSON.stringify(result)}\n`);
  else {
    for (const f of result.fixes)
      ctx.log.info(`fixed: ${f.file} row ${f.row} (line ${f.line}): ${f.message}`);
    for (const p of result.problems) ctx.log.error(problemText(p));
    ctx.log.info(
      result.written
        ? `wrote ${flags.output}: ${count(result.events, 'event')}, ${count(result.fixedEvents, 'event')} fixed, ${count(result.problems.length, 'problem')} left`
        : `nothing written: ${count(result.problems.length, 'problem')} kept the copy from being made`,
    );
  }
  return result.problems.length > 0 || !result.written ? ExitCode.data : ExitCode.ok;
}

export async function runSendEvents(
  files: string[],
  flags: EventsSettings,
  loadedKey: { value: string; from: string } | undefined,
  ctx: CommandContext,
): Promise<number> {
  const json = flags.json === true;
  const log = ctx.log;
  const reporters = reportersOf(flags, ctx);
  const settings = readSettings(flags);
  const concurrency = flags.concurrency ?? 4;
  const retries = flags.retries ?? 5;
  const timeoutMs = (flags.timeout ?? 30) * 1000;
  const backoff = {
    baseMs: flags.retryBase ?? 500,
    capMs: flags.retryCap ?? 30_000,
    retryAfterCapMs: 120_000,
  };

  let baseUrl = flags.baseUrl;
  let key = flags.sandbox ? undefined : loadedKey?.value;
  let sandbox: { url: string; serviceKey: string; close(): Promise<void>; stats(): unknown } | undefined;
  if (flags.sandbox) {
    const { startSandbox } = await import('../sandbox/index.js');
    sandbox = await startSandbox({ port: 0, host: '127.0.0.1', quiet: true, log, sqlite: flags.sqlite });
    baseUrl = sandbox.url;
    key = sandbox.serviceKey;
    log.info(`sandbox: started an embedded sandbox at ${sandbox.url}`);
  }
  if (!baseUrl) {
    throw new UsageError(
      'no collection host given',
      'pass --base-url URL or set GENSER_BASE_URL (or use --sandbox)',
    );
  }
  if (!key) {
    throw new UsageError(
      'no service key given',
      'set GENSER_SERVICE_KEY, or put the key in a file and pass --service-key-file FILE',
    );
  }

  const poster = new UndiciSender({
    apiUrl: baseUrl,
    connections: concurrency,
    timeoutMs,
    userAgent: `genser/${packageVersion()}`,
    keyHeader: 'serviceKey',
    key,
    network: ctx.network,
  });
  const interrupt = new AbortController();
  const onSigint = () => {
    log.warn('interrupted: finishing the events in flight, sending no more');
    interrupt.abort();
  };
  process.once('SIGINT', onSigint);

  const counted = await sendCounted(files, settings, log, (events) =>
    sendEvents(events, { concurrency, retries, backoff }, { poster, log, interrupt: interrupt.signal }),
  ).finally(async () => {
    process.removeListener('SIGINT', onSigint);
    await poster.close();
  });
  if (sandbox) {
    if (!json) log.info(`sandbox: ${JSON.stringify(sandbox.stats())}`);
    await sandbox.close();
  }
  return reportSent({ ...counted, files, target: baseUrl.replace(/\/+$/, '') }, reporters, ctx);
}

/**
 * The send itself, with the accounting of what was read: invalid events (each problem logged,
 * the first --max-errors kept as issues), the last row read, the duration.
 */
async function sendCounted(
  files: string[],
  settings: ReadSettings,
  log: Logger,
  send: (events: AsyncIterable<EventToSend>) => Promise<EventSendResult>,
): Promise<Omit<EventsRun, 'files' | 'target'>> {
  const issues: EventIssue[] = [];
  let problems = 0;
  const invalidRows = new Set<string>();
  let fileErrors = 0;
  let lastRow = 0;
  async function* valid(): AsyncGenerator<EventToSend> {
    for await (const c of checkedEvents(files, settings, log)) {
      if (c.kind === 'event') {
        lastRow = c.send.row;
        yield c.send;
        continue;
      }
      const p = c.problem;
      problems++;
      if (p.row > 0) {
        lastRow = p.row;
        invalidRows.add(`${p.file}\0${p.row}`);
      } else fileErrors++;
      if (issues.length < settings.maxErrors) issues.push({ severity: 'error', ...p });
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

/** Summary (stderr) or the --json document (stdout), then the exit code. */
export function reportSent(run: EventsRun, reporters: Reporter[], ctx: CommandContext): number {
  const { stop } = run.result;
  // A file that fails before its first event (no such file) is a plain usage error, as in upload.
  if (stop?.error !== undefined && run.lastRow === 0 && run.fileErrors === 0) throw stop.error;
  finishReports(reporters, { command: 'events send', report: eventsReport(run) }, ctx, () => {
    for (const line of eventsSummaryLines(run)) ctx.stderr.write(redact(`${line}\n`));
  });
  if (stop) {
    if (stop.error !== undefined) throw stop.error;
    throw new ExitError(stopExitCode(stop.reason), stop.message, stop.hint);
  }
  return run.result.rejected > 0 || run.invalid > 0 || run.fileErrors > 0 ? ExitCode.data : ExitCode.ok;
}
