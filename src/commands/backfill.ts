import type { BackfillSummary } from '../events/backfill.js';
import { loadOrderMapping } from '../events/backfill-mapping.js';
import { type BackfillRunResult, runBackfill } from '../events/backfill-run.js';
import type { EventSendResult } from '../events/send.js';
import { type EventProblemLine, problemText } from '../events/source.js';
import { stopExitCode } from '../http/run.js';
import { type Poster, UndiciSender } from '../http/sender.js';
import { ExitCode, ExitError, UsageError } from '../shared/errors.js';
import { packageVersion } from '../shared/paths.js';
import { redact } from '../shared/secrets.js';
import type { EncodingName, InputType } from '../shared/types.js';
import { count, duration, n, outcomeWords } from '../shared/words.js';
import type { CommandContext } from './context.js';

/**
 * `genser events backfill FILE`: an order export -> purchase events, sent like `events send`
 * (docs/events.md, "Backfill"). The domain does the work (src/events/backfill-run.ts); this
 * resolves where to send, prints the summary, and picks the exit code.
 */
export interface BackfillCommandSettings {
  mapping?: string;
  preset?: string;
  country: string;
  eventSource?: string;
  /** Events per second; 0: no limit. */
  rate: number;
  dryRun?: boolean;
  json?: boolean;
  encoding: EncodingName;
  delimiter?: string;
  inputType?: InputType;
  maxErrors?: number;
  baseUrl?: string;
  concurrency: number;
  retries: number;
  retryBase: number;
  retryCap: number;
  /** Seconds. */
  timeout: number;
  sandbox?: boolean;
  newKeys?: boolean;
}

interface Target {
  baseUrl: string;
  key: string;
  close(): Promise<void>;
}

export async function runBackfillCommand(
  file: string,
  s: BackfillCommandSettings,
  loadedKey: { value: string; from: string } | undefined,
  ctx: CommandContext,
): Promise<number> {
  const log = ctx.log;
  // The default country must not hide a mapping file's own "country": pass it only when set.
  const mapping = loadOrderMapping({
    mapping: s.mapping,
    preset: s.preset,
    country: ctx.explicit.has('country') ? s.country : undefined,
  });
  const target = s.dryRun ? undefined : await targetOf(s, loadedKey, ctx);
  const poster = target
    ? new UndiciSender({
        apiUrl: target.baseUrl,
        connections: s.concurrency,
        timeoutMs: s.timeout * 1000,
        userAgent: `genser/${packageVersion()}`,
        keyHeader: 'serviceKey',
        key: target.key,
        network: ctx.network,
      })
    : undefined;
  const maxErrors = s.maxErrors ?? 20;
  const issues: EventProblemLine[] = [];
  const interrupt = new AbortController();
  const onSigint = () => {
    log.warn('interrupted: finishing the events in flight, sending no more (run again to resume)');
    interrupt.abort();
  };
  process.once('SIGINT', onSigint);
  const started = Date.now();
  let result: BackfillRunResult;
  try {
    result = await runBackfill(
      file,
      {
        mapping,
        source: s.eventSource,
        newKeys: s.newKeys === true,
        read: { encoding: s.encoding, delimiter: s.delimiter, inputType: s.inputType },
        rate: s.rate,
        dryRun: s.dryRun === true,
        send: {
          concurrency: s.concurrency,
          retries: s.retries,
          backoff: { baseMs: s.retryBase, capMs: s.retryCap, retryAfterCapMs: 120_000 },
        },
      },
      {
        // A dry run sends nothing: no poster is ever asked.
        poster: poster as Poster,
        log,
        interrupt: interrupt.signal,
        stdin: file === '-' ? process.stdin : undefined,
        onProblem(problem) {
          if (issues.length >= maxErrors) return;
          issues.push(problem);
          if (!s.json) log.error(`not sent: ${problemText(problem)}`);
        },
      },
    );
  } finally {
    process.removeListener('SIGINT', onSigint);
    await poster?.close();
    await target?.close();
  }
  const durationMs = Date.now() - started;
  const sent = result.sent;
  const stop = sent?.stop;
  if (s.json) {
    const doc = {
      file,
      dryRun: s.dryRun === true,
      summary: result.summary,
      problems: result.problems,
      issues,
      truncated: result.problems > issues.length,
      ...(sent ? { sent: sentCounts(sent) } : {}),
      ...(stop ? { stopped: { reason: stop.reason, message: stop.message } } : {}),
      ...(target ? { target: target.baseUrl.replace(/\/+$/, '') } : {}),
      durationMs,
      failures: sent?.failures ?? [],
    };
    ctx.stdout.write(redact(`${JSON.stringify(doc)}\n`));
  } else {
    const lines = backfillSummaryLines(result.summary, result.problems, issues.length, sent, durationMs);
    for (const line of lines) ctx.stderr.write(redact(`${line}\n`));
  }
  if (stop) {
    if (stop.error !== undefined) throw stop.error;
    throw new ExitError(stopExitCode(stop.reason), stop.message, stop.hint);
  }
  return result.problems > 0 || (sent?.rejected ?? 0) > 0 ? ExitCode.data : ExitCode.ok;
}

/** The host and key: an embedded sandbox, or --base-url with the service key. */
async function targetOf(
  s: BackfillCommandSettings,
  loadedKey: { value: string; from: string } | undefined,
  ctx: CommandContext,
): Promise<Target> {
  if (s.sandbox) {
    if (s.baseUrl)
      ctx.log.warn(`--sandbox sends into an embedded sandbox: the base url ${s.baseUrl} is not used`);
    const { startSandbox } = await import('../sandbox/index.js');
    const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', quiet: true, log: ctx.log });
    ctx.log.info(`sandbox: started an embedded sandbox at ${sandbox.url}`);
    return { baseUrl: sandbox.url, key: sandbox.serviceKey, close: () => sandbox.close() };
  }
  if (!s.baseUrl)
    throw new UsageError(
      'no collection host given',
      'pass --base-url URL or set GENSER_BASE_URL (or use --sandbox, or --dry-run to only check)',
    );
  if (!loadedKey)
    throw new UsageError(
      'no service key given',
      'set GENSER_SERVICE_KEY, or put the key in a file and pass --service-key-file FILE',
    );
  return { baseUrl: s.baseUrl, key: loadedKey.value, close: async () => {} };
}

function sentCounts(r: EventSendResult) {
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
