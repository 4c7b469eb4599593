import { loadMapping, readMappingDefaults } from '../map/mapping-file.js';
import { runStockChanges } from '../nightly/stock-run.js';
import { UsageError } from '../shared/errors.js';
import type { EncodingName, InputType, PayloadFormat } from '../shared/types.js';
import { stockColumns } from '../stock/columns.js';
import type { BackendChoice } from '../storage/sqlite.js';
import { type UploadInputs, uploadSettingsFrom } from '../upload/settings.js';
import { resolveShard, type Shard } from '../upload/shard.js';
import { type AlertInputs, withAlerts } from './alerting.js';
import type { CommandContext } from './context.js';
import { embeddedTarget, printEnding } from './product-ending.js';
import { requireTarget, withSending } from './sending.js';

/**
 * `genser stock FILE` (docs/nightly.md, "Stock changes"): the settings resolved, the shared
 * sending skeleton, the run (src/nightly/stock-run.ts), then its summary, reports and exit code.
 */
export interface StockCommandSettings extends Omit<UploadInputs, 'type'>, AlertInputs {
  format: PayloadFormat;
  mapping?: string;
  encoding: EncodingName;
  delimiter?: string;
  inputType?: InputType;
  country: string;
  apiUrl?: string;
  /** Seconds. */
  timeout: number;
  sandbox?: boolean;
  sandboxDb?: string;
  sqlite?: BackendChoice;
  state?: string;
  json?: boolean;
  quiet?: boolean;
  report?: string;
  reporter?: string[];
  /** A sharded target (docs/nightly.md, "Shards"): each shard's state holds its own SKUs. */
  shard?: Shard;
  shardCount?: number;
}

export async function runStock(
  file: string,
  s: StockCommandSettings,
  loadedKey: { value: string; from: string } | undefined,
  ctx: CommandContext,
): Promise<number> {
  const log = ctx.log;
  const format = formatOf(s, ctx);
  const given = checkTarget(s, loadedKey);
  const shard = resolveShard({
    shard: s.shard,
    shardCount: s.shardCount,
    jobIndex: ctx.env.JOB_COMPLETION_INDEX,
  });
  const mapping = s.mapping
    ? loadMapping(s.mapping, { format, kind: 'products', country: s.country })
    : undefined;
  const settings = uploadSettingsFrom({ ...s, type: 'update_product' }, { format, kind: 'products' });
  // Its own key (kept in --sandbox-db) names the target's state, so it starts even for a dry run.
  const sandbox = s.sandbox
    ? { service: 'products' as const, wanted: { country: s.country, db: s.sandboxDb, sqlite: s.sqlite } }
    : undefined;
  const alerted = {
    command: 'stock' as const,
    url: s.sandbox ? undefined : s.apiUrl,
    format,
    ...(shard ? { shard: `${shard.index}/${shard.count}` } : {}),
  };
  return withAlerts(s, alerted, ctx, (note) =>
    withSending(
      log,
      {
        stopMessage: 'finishing the requests in flight',
        ...(sandbox ? { sandbox } : {}),
        ...(file === '-' ? { stdin: process.stdin } : {}),
      },
      async ({ stop, sandbox: running }) => {
        const target = running ? embeddedTarget(running, s.sandboxDb) : given;
        if (!target) throw new Error('stock: no target after checkTarget');
        const ending = await runStockChanges(
          {
            file,
            format,
            country: s.country,
            columns: stockColumns(format, mapping),
            read: { encoding: s.encoding, delimiter: s.delimiter, inputType: s.inputType },
            settings,
            timeoutMs: s.timeout * 1000,
            target,
            ...(s.state !== undefined ? { state: s.state } : {}),
            ...(shard ? { shard } : {}),
          },
          {
            log,
            env: ctx.env,
            interrupt: stop.signal,
            ...(ctx.network ? { network: ctx.network } : {}),
            ...(file === '-' ? { stdin: process.stdin } : {}),
          },
        );
        note(ending);
        return printEnding(ending, stop.signal, s, ctx);
      },
    ),
  );
}

/** The run's format: the user's, else the mapping file's own, else standard (as for upload). */
function formatOf(s: StockCommandSettings, ctx: Pick<CommandContext, 'explicit'>): PayloadFormat {
  if (s.mapping && !ctx.explicit.has('format')) return readMappingDefaults(s.mapping).format ?? s.format;
  return s.format;
}

/**
 * Stock merges into what the target's state kept: it needs the target (and its state) even for
 * a dry run; with --sandbox, a sandbox and a state kept in files.
 */
function checkTarget(
  s: StockCommandSettings,
  key: { value: string; from: string } | undefined,
): { apiUrl: string; key: string; keyFrom: string } | undefined {
  if (s.sandbox) {
    if (s.state === undefined || s.sandboxDb === undefined)
      throw new UsageError(
        '--sandbox: genser stock needs the upload state of a sandbox kept in a file',
        'give --state DIR and --sandbox-db FILE, as for the upload that sent the products',
      );
    return undefined;
  }
  const to = requireTarget('products', {
    url: s.apiUrl,
    key: key?.value,
    urlHint: 'the same url the products were uploaded to: stock merges into what that target accepted',
    keyHint: 'it must be the key the products were uploaded with',
  });
  return { apiUrl: to.url, key: to.key, keyFrom: key?.from ?? 'the environment' };
}
