import { loadOrderMapping } from '../events/backfill-mapping.js';
import { type BackfillRunResult, runBackfill } from '../events/backfill-run.js';
import { backfillSummaryLines, sentCounts } from '../events/backfill-summary.js';
import { eventsSender } from '../events/sender.js';
import { problemText } from '../events/source.js';
import type { Poster } from '../http/sender.js';
import { eventIssueJson } from '../report/events-shapes.js';
import { ExitCode } from '../shared/errors.js';
import { redact } from '../shared/secrets.js';
import type { EncodingName, InputType, Issue } from '../shared/types.js';
import type { CommandContext } from './context.js';
import { endRun, requireTarget, withSending } from './sending.js';

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
  const embedded = s.sandbox === true && !s.dryRun;
  const given = s.dryRun || embedded ? undefined : targetOf(s, loadedKey);
  const sandbox = embedded ? { service: 'events' as const, wanted: {}, givenUrl: s.baseUrl } : undefined;
  return withSending(
    log,
    {
      stopMessage: 'finishing the events in flight, sending no more; run again to resume',
      ...(sandbox ? { sandbox } : {}),
    },
    async ({ stop, sandbox: running }) => {
      const target = running ? { url: running.url, key: running.serviceKey } : given;
      const issues: Issue[] = [];
      const started = Date.now();
      const result = await backfillTo(file, s, { mapping, target, issues, interrupt: stop.signal }, ctx);
      const durationMs = Date.now() - started;
      const sent = result.sent;
      const code = result.problems > 0 || (sent?.rejected ?? 0) > 0 ? ExitCode.data : ExitCode.ok;
      return endRun({ stop: sent?.stop, nothingRead: false, code }, stop.signal, () => {
        if (s.json) {
          const doc = {
            file,
            dryRun: s.dryRun === true,
            summary: result.summary,
            problems: result.problems,
            issues: issues.map(eventIssueJson),
            truncated: result.problems > issues.length,
            ...(sent ? { sent: sentCounts(sent) } : {}),
            ...(sent?.stop ? { stopped: { reason: sent.stop.reason, message: sent.stop.message } } : {}),
            ...(target ? { target: target.url.replace(/\/+$/, '') } : {}),
            durationMs,
            failures: sent?.failures ?? [],
          };
          ctx.stdout.write(redact(`${JSON.stringify(doc)}\n`));
          return;
        }
        const lines = backfillSummaryLines(result.summary, result.problems, issues.length, sent, durationMs);
        for (const line of lines) ctx.stderr.write(redact(`${line}\n`));
      });
    },
  );
}

/** The domain's run (src/events/backfill-run.ts), sending to `target` (none: a dry run). */
async function backfillTo(
  file: string,
  s: BackfillCommandSettings,
  run: {
    mapping: ReturnType<typeof loadOrderMapping>;
    target?: { url: string; key: string };
    issues: Issue[];
    interrupt: AbortSignal;
  },
  ctx: CommandContext,
): Promise<BackfillRunResult> {
  const log = ctx.log;
  const maxErrors = s.maxErrors ?? 20;
  const poster = run.target
    ? eventsSender({ ...run.target, network: ctx.network }, s.concurrency, s.timeout * 1000)
    : undefined;
  try {
    return await runBackfill(
      file,
      {
        mapping: run.mapping,
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
        interrupt: run.interrupt,
        stdin: file === '-' ? process.stdin : undefined,
        onProblem(problem) {
          if (run.issues.length >= maxErrors) return;
          run.issues.push(problem);
          if (!s.json) log.error(`not sent: ${problemText(problem)}`);
        },
      },
    );
  } finally {
    await poster?.close();
  }
}

/** The host and key given: --base-url with the service key. */
function targetOf(
  s: BackfillCommandSettings,
  loadedKey: { value: string } | undefined,
): { url: string; key: string } {
  return requireTarget('events', {
    url: s.baseUrl,
    key: loadedKey?.value,
    urlHint: 'pass --base-url URL or set GENSER_BASE_URL (or use --sandbox, or --dry-run to only check)',
  });
}
