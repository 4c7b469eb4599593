import { checkEvent } from '../events/check.js';
import { allExamples, exampleFor } from '../events/examples.js';
import { EVENT_KINDS, EVENT_TYPES } from '../events/kinds.js';
import { type EventToSend, sendEvents } from '../events/send.js';
import { readFeed } from '../read/index.js';
import { ExitCode, UsageError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { packageVersion } from '../shared/paths.js';
import { redact } from '../shared/secrets.js';
import type { EncodingName, InputType } from '../shared/types.js';
import { UndiciSender } from '../upload/sender.js';
import type { CommandContext } from './context.js';

/** The actions of `genser events ...`: reading, checking, sending, and what they print. */

export interface EventProblemLine {
  file: string;
  row: number;
  line: number;
  type?: string;
  pointer: string;
  message: string;
}

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
  if (type === undefined) {
    for (const e of allExamples()) ctx.stdout.write(`${JSON.stringify(e)}\n`);
    return ExitCode.ok;
  }
  const example = exampleFor(type);
  if (!example) throw new UsageError(`unknown event type "${type}"`, `use one of ${EVENT_TYPES.join(', ')}`);
  ctx.stdout.write(`${JSON.stringify(example, null, 2)}\n`);
  return ExitCode.ok;
}

interface ReadSettings {
  encoding: EncodingName;
  inputType?: InputType;
  forcedType?: string;
  maxErrors: number;
}

function readSettings(flags: EventsSettings): ReadSettings {
  return {
    encoding: flags.encoding ?? 'auto',
    inputType: flags.inputType,
    forcedType: flags.eventType,
    maxErrors: flags.maxErrors ?? 20,
  };
}

type Checked = { kind: 'event'; send: EventToSend } | { kind: 'problem'; problem: EventProblemLine };

/** Every event of every file, checked, in order; read problems become problem lines. */
async function* checkedEvents(files: string[], settings: ReadSettings, log: Logger): AsyncGenerator<Checked> {
  for (const file of files) {
    const options = { encoding: settings.encoding, inputType: settings.inputType };
    for await (const item of readFeed(file, options, log)) {
      if (item.type === 'issue') {
        const i = item.issue;
        if (i.severity === 'error') {
          yield {
            kind: 'problem',
            problem: {
              file: i.file,
              row: i.row ?? 0,
              line: i.line ?? 0,
              pointer: i.column ?? '',
              message: i.message,
            },
          };
        }
        continue;
      }
      const { record } = item;
      const check = checkEvent(record.fields, settings.forcedType);
      if (check.ok) {
        yield {
          kind: 'event',
          send: {
            file: record.file,
            row: record.row,
            line: record.line,
            kind: check.kind,
            body: JSON.stringify(record.fields),
          },
        };
        continue;
      }
      for (const p of check.problems) {
        yield {
          kind: 'problem',
          problem: { file: record.file, row: record.row, line: record.line, type: check.kind?.type, ...p },
        };
      }
    }
  }
}

function problemText(p: EventProblemLine): string {
  const at = p.pointer ? ` ${p.pointer}` : '';
  return `${p.file} row ${p.row} (line ${p.line}${p.type ? `, ${p.type}` : ''}):${at} ${p.message}`;
}

export async function runValidateEvents(
  files: string[],
  flags: EventsSettings,
  ctx: CommandContext,
): Promise<number> {
  const json = flags.json === true;
  const log = ctx.log;
  const settings = readSettings(flags);
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
  if (json) {
    ctx.stdout.write(
      `${JSON.stringify({ files, events: { total: events, valid, invalid: invalidRows.size }, problems, truncated })}\n`,
    );
  } else {
    for (const p of problems) log.error(problemText(p));
    if (truncated)
      log.info(`... and ${problemCount - problems.length} more problems (raise --max-errors to see them)`);
    log.info(`${events} events: ${valid} valid, ${invalidRows.size} invalid`);
  }
  return problemCount > 0 ? ExitCode.data : ExitCode.ok;
}

export async function runSendEvents(
  files: string[],
  flags: EventsSettings,
  loadedKey: { value: string; from: string } | undefined,
  ctx: CommandContext,
): Promise<number> {
  const json = flags.json === true;
  const log = ctx.log;
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
    sandbox = await startSandbox({ port: 0, host: '127.0.0.1', quiet: true, log });
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
  });
  const interrupt = new AbortController();
  const onSigint = () => {
    log.warn('interrupted: finishing the events in flight, sending no more');
    interrupt.abort();
  };
  process.once('SIGINT', onSigint);

  const invalid: EventProblemLine[] = [];
  let invalidCount = 0;
  async function* valid(): AsyncGenerator<EventToSend> {
    for await (const c of checkedEvents(files, settings, log)) {
      if (c.kind === 'event') {
        yield c.send;
        continue;
      }
      invalidCount++;
      if (invalid.length < settings.maxErrors) invalid.push(c.problem);
      log.error(`invalid, not sent: ${problemText(c.problem)}`);
    }
  }

  const started = Date.now();
  let result: Awaited<ReturnType<typeof sendEvents>>;
  try {
    result = await sendEvents(
      valid(),
      { concurrency, retries, backoff },
      { poster, log, interrupt: interrupt.signal },
    );
  } finally {
    process.removeListener('SIGINT', onSigint);
    await poster.close();
  }
  const summary = {
    sent: result.sent,
    accepted: result.accepted,
    rejected: result.rejected,
    failed: result.failed,
    invalid: invalidCount,
    retries: result.retries,
    durationMs: Date.now() - started,
  };
  if (sandbox) {
    if (!json) log.info(`sandbox: ${JSON.stringify(sandbox.stats())}`);
    await sandbox.close();
  }
  if (json) {
    const failures = result.failures.map((f) => ({
      file: f.event.file,
      row: f.event.row,
      line: f.event.line,
      type: f.event.kind.type,
      status: f.httpStatus,
      message: f.message,
    }));
    ctx.stdout.write(
      redact(`${JSON.stringify({ summary, invalid, failures, stop: result.stop ?? null })}\n`),
    );
  } else {
    log.info(
      `events: ${summary.sent} sent, ${summary.accepted} accepted, ${summary.rejected} rejected, ${summary.failed} failed, ${summary.invalid} invalid (not sent), ${summary.retries} retries`,
    );
  }
  if (result.stop === 'auth') {
    log.error('the collection host refused the service key (401)');
    log.info(
      'hint: check GENSER_SERVICE_KEY or the key file for a wrong or outdated key (the value is not shown)',
    );
    return ExitCode.auth;
  }
  if (result.stop === 'interrupted') return ExitCode.interrupted;
  if (result.stop === 'unavailable') return ExitCode.unavailable;
  return result.rejected > 0 || invalidCount > 0 ? ExitCode.data : ExitCode.ok;
}
