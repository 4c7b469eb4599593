import { examplesText } from '../events/examples.js';
import { fixEventsFile } from '../events/fix-file.js';
import { EVENT_KINDS } from '../events/kinds.js';
import { unknownTypeHint } from '../events/quirks.js';
import { sendEvents } from '../events/send.js';
import { eventsSender } from '../events/sender.js';
import { type EventReadSettings, problemText } from '../events/source.js';
import { type EventsRun, eventsReport, eventsSummaryLines } from '../report/events-report.js';
import { eventIssueJson } from '../report/events-shapes.js';
import type { Reporter } from '../report/reporters.js';
import { ExitCode, UsageError } from '../shared/errors.js';
import { redact } from '../shared/secrets.js';
import type { EncodingName, InputType } from '../shared/types.js';
import { count, n } from '../shared/words.js';
import type { BackendChoice } from '../storage/sqlite.js';
import type { CommandContext } from './context.js';
import { sendCounted, validateCounted } from './events-counted.js';
import { finishReports, reportersOf } from './reporting.js';
import { endRun, requireTarget, withSending } from './sending.js';

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
  const report = await validateCounted(files, settings, log);
  const { issues: problems, problemCount, truncated } = report;
  const { valid, total, invalid } = report.events;
  finishReports(reporters, { command: 'events validate', report }, ctx, () => {
    for (const p of problems) log.error(problemText(p));
    if (truncated)
      log.info(
        `... and ${count(problemCount - problems.length, 'more problem')} (raise --max-errors to see them)`,
      );
    log.info(`${count(total, 'event')}: ${n(valid)} valid, ${n(invalid)} invalid`);
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
  if (flags.json)
    ctx.stdout.write(`${JSON.stringify({ ...result, problems: result.problems.map(eventIssueJson) })}\n`);
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
  const log = ctx.log;
  const reporters = reportersOf(flags, ctx);
  const settings = readSettings(flags);
  const concurrency = flags.concurrency ?? 4;
  const retries = flags.retries ?? 5;
  const backoff = {
    baseMs: flags.retryBase ?? 500,
    capMs: flags.retryCap ?? 30_000,
    retryAfterCapMs: 120_000,
  };
  const sandbox = flags.sandbox
    ? { service: 'events' as const, wanted: flags.sqlite ? { sqlite: flags.sqlite } : {} }
    : undefined;
  const given = sandbox
    ? undefined
    : requireTarget('events', {
        url: flags.baseUrl,
        key: loadedKey?.value,
        urlHint: 'pass --base-url URL or set GENSER_BASE_URL (or use --sandbox)',
      });
  return withSending(
    log,
    {
      stopMessage: 'finishing the events in flight, sending no more',
      ...(sandbox ? { sandbox } : {}),
      ...(files.includes('-') ? { stdin: process.stdin } : {}),
    },
    async ({ stop, sandbox: running }) => {
      const to = running ? { url: running.url, key: running.serviceKey } : given;
      if (!to) throw new Error('events send: no target');
      const poster = eventsSender({ ...to, network: ctx.network }, concurrency, (flags.timeout ?? 30) * 1000);
      const counted = await sendCounted({ files, settings, log, interrupt: stop.signal }, (events) =>
        sendEvents(events, { concurrency, retries, backoff }, { poster, log, interrupt: stop.signal }),
      ).finally(() => poster.close());
      if (running && !flags.json) log.info(`sandbox: ${JSON.stringify(running.stats())}`);
      return reportSent(
        { ...counted, files, target: to.url.replace(/\/+$/, '') },
        reporters,
        ctx,
        stop.signal,
      );
    },
  );
}

/** Summary (stderr) or the --json document (stdout), then the exit code. */
export function reportSent(
  run: EventsRun,
  reporters: Reporter[],
  ctx: CommandContext,
  interrupt?: AbortSignal,
): number {
  const { result } = run;
  const code = result.rejected > 0 || run.invalid > 0 || run.fileErrors > 0 ? ExitCode.data : ExitCode.ok;
  // A file that fails before its first event (no such file) is a plain usage error, as in upload.
  const nothingRead = run.lastRow === 0 && run.fileErrors === 0;
  return endRun({ stop: result.stop, nothingRead, code }, interrupt, () =>
    finishReports(reporters, { command: 'events send', report: eventsReport(run) }, ctx, () => {
      for (const line of eventsSummaryLines(run)) ctx.stderr.write(redact(`${line}\n`));
    }),
  );
}
