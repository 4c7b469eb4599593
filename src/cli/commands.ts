import type { CommandContext } from '../commands/context.js';
import { resolveFromConfig } from './config-file.js';
import type { CommandName } from './option-table.js';
import type { Resolved } from './settings.js';

/**
 * The commands: their words, arguments, help and examples, and the action each runs. The
 * actions live in `src/commands/` and load lazily, so `genser --version` stays fast.
 */
export interface CommandDef {
  name: CommandName;
  description: string;
  /** commander argument syntax and its help: `['<file...>', 'feed files ...']`. */
  args: [string, string][];
  examples: string[];
  run(args: unknown[], resolved: Resolved, ctx: CommandContext): Promise<number>;
}

const FEED_FILES = 'feed files (CSV, JSON, NDJSON, .gz; "-" reads stdin)';

export const COMMAND_DEFS: CommandDef[] = [
  {
    name: 'config',
    description: 'print the effective settings of a command and where each came from',
    args: [
      ['[command...]', 'the command (default: upload), e.g. validate, sandbox, events send, then its flags'],
    ],
    examples: [
      'genser config upload',
      'genser config upload --profile staging --format legacy   as these flags would make them',
      'genser config events send --json',
    ],
    // The program resolves the named command's settings, with its flags (src/cli/program.ts).
    async run(_args, resolved, ctx) {
      const { runConfig } = await import('./show-config.js');
      return runConfig(resolved, resolved.settings, ctx);
    },
  },
  {
    name: 'validate',
    description: 'check feeds against the service schemas; print problems by row (exit 0 valid, 1 invalid)',
    args: [['<file...>', FEED_FILES]],
    examples: [
      'genser validate catalog.csv                      grouped problems on stderr',
      'genser validate catalog.csv --json > report.json one JSON document on stdout',
      'genser validate export.csv --mapping shop.json --encoding cp949',
    ],
    async run(args, resolved, ctx) {
      const reporting = await withReporters(resolved, ctx);
      const { runValidate } = await import('../commands/validate.js');
      return runValidate(args[0] as string[], resolved.settings, reporting);
    },
  },
  {
    name: 'convert',
    description:
      'write the built payloads of the valid rows: standard NDJSON of products (or envelopes), legacy JSON array',
    args: [['<file...>', FEED_FILES]],
    examples: [
      'genser convert catalog.csv -o products.ndjson      standard product nodes, one per line',
      'genser convert catalog.csv --envelope -o env.ndjson request envelopes of --batch-size products',
      'genser convert legacy.csv --format legacy -o products.json',
    ],
    async run(args, resolved, ctx) {
      const s = resolved.settings;
      const reporting = await withReporters(resolved, ctx, s.output ? undefined : 'the converted data');
      const { runConvert } = await import('../commands/convert.js');
      return runConvert(args[0] as string[], s, reporting);
    },
  },
  {
    name: 'upload',
    description: 'validate a feed, then send its valid products in bounded, concurrent, retried batches',
    args: [['[file...]', `${FEED_FILES}; none with --retry-failed`]],
    examples: [
      'genser upload --sample --sandbox                  the shipped sample catalog into an embedded local sandbox',
      'genser upload catalog.csv --sandbox               your feed into an embedded local sandbox',
      'genser upload catalog.csv --dry-run               everything but sending',
      'GENSER_API_URL=https://api.example.com GENSER_API_KEY_FILE=~/.genser/key genser upload catalog.csv',
    ],
    async run(args, resolved, ctx) {
      const reporting = await withReporters(resolved, ctx);
      const { checkSamplePath } = await import('../commands/upload-target.js');
      const { loadApiKey } = await import('./keys.js');
      const { runUpload } = await import('../commands/upload.js');
      const s = resolved.settings;
      const { feedFiles } = await import('./sample.js');
      checkSamplePath(s, ctx);
      const files = feedFiles(args[0] as string[], s);
      const key = s.sandbox || s.dryRun ? undefined : loadApiKey(resolved, ctx.env, ctx.log);
      return runUpload(files, s, key, reporting);
    },
  },
  {
    name: 'plan',
    description:
      "what an upload of the feed would do against the target's state, sending nothing: creates, updates, out-of-stock marks, refused rows, fields and price moves, and whether a guard would trip",
    args: [['<file...>', FEED_FILES]],
    examples: [
      'genser plan catalog.csv                           the same settings and target as `genser upload catalog.csv`',
      'genser plan catalog.csv --missing out-of-stock --json',
    ],
    async run(args, resolved, ctx) {
      const { loadApiKey } = await import('./keys.js');
      const { runPlan } = await import('../commands/plan.js');
      const s = resolved.settings;
      const key = s.sandbox ? undefined : loadApiKey(resolved, ctx.env, ctx.log);
      const reporting = await withReporters(resolved, ctx);
      return runPlan(args[0] as string[], s, key, reporting);
    },
  },
  {
    name: 'stock',
    description:
      "send stock changes at once: each row's in_stock or availability merged into the SKU's last accepted payload",
    args: [
      ['<file>', 'a stock file (CSV, JSON, NDJSON, .gz; "-" reads stdin): sku plus in_stock or availability'],
    ],
    examples: [
      'genser stock stock.csv --format legacy            applied at once by the legacy API (contract 1.5)',
      'genser stock stock.csv                            standard: update_product, searchable after the next 00:15 batch',
      'genser stock stock.csv --dry-run                  merge and check, send nothing',
    ],
    async run(args, resolved, ctx) {
      const reporting = await withReporters(resolved, ctx);
      const { loadApiKey } = await import('./keys.js');
      const { runStock } = await import('../commands/stock.js');
      const s = resolved.settings;
      const key = s.sandbox ? undefined : loadApiKey(resolved, ctx.env, ctx.log);
      return runStock(args[0] as string, s, key, reporting);
    },
  },
  {
    name: 'init',
    description:
      'draft a mapping file from a feed: a known shop export, or each column guessed from its name and values',
    args: [['<file>', 'a feed (CSV, JSON, NDJSON) with its header and some rows']],
    examples: [
      'genser init export.csv                            writes genser.mapping.json',
      'genser validate export.csv --mapping genser.mapping.json',
    ],
    async run(args, resolved, ctx) {
      const { runInit } = await import('../commands/init.js');
      return runInit(args[0] as string, resolved.settings, ctx);
    },
  },
  {
    name: 'search',
    description:
      'print what a search backend (the sandbox, or a URL) answers to a query, to check an upload landed',
    args: [['<query...>', 'the search words']],
    examples: [
      'genser search "가죽 가방" --url http://127.0.0.1:8080    the sandbox (its instance key from GENSER_INSTANCE_KEY)',
      'genser search tote --json',
    ],
    async run(args, resolved, ctx) {
      const { runSearch } = await import('../commands/search.js');
      return runSearch((args[0] as string[]).join(' '), resolved.settings, ctx);
    },
  },
  {
    name: 'sandbox',
    description: 'run a local emulation of the service (event collection + product ingestion hosts)',
    args: [],
    examples: [
      'genser sandbox --port 8080                        the service on http://127.0.0.1:8080',
      'genser sandbox --port 0 --db sandbox.db > url.txt a free port; data and keys kept in a file',
      'genser sandbox --fail-rate 0.2 --latency 50-200   a flaky service, to test retries',
    ],
    async run(_args, resolved, ctx) {
      const { runSandbox } = await import('../commands/sandbox.js');
      return runSandbox(resolved.settings, generatedKeys(resolved), ctx);
    },
  },
  {
    name: 'events example',
    description: 'print a valid example event of a kind (all kinds when none is named)',
    args: [['[type]', 'event type, e.g. view_product, complete_purchase']],
    examples: ['genser events example view_product', 'genser events example --list'],
    async run(args, resolved, ctx) {
      const { runExample } = await import('../commands/events.js');
      return runExample(args[0] as string | undefined, resolved.settings, ctx);
    },
  },
  {
    name: 'events validate',
    description: 'check event files (a JSON event, a JSON array, or NDJSON) against the event schemas',
    args: [['<file...>', 'event files; "-" reads stdin']],
    examples: ['genser events validate events.ndjson', 'genser events validate events.json --json'],
    async run(args, resolved, ctx) {
      const reporting = await withReporters(resolved, ctx);
      const { runValidateEvents } = await import('../commands/events.js');
      return runValidateEvents(args[0] as string[], resolved.settings, reporting);
    },
  },
  {
    name: 'events send',
    description:
      'validate, then send each event to its endpoint with serviceKey, requestId and Idempotency-Key',
    args: [['<file...>', 'event files; "-" reads stdin']],
    examples: [
      'genser events send events.ndjson --sandbox',
      'GENSER_BASE_URL=https://collect.example.com GENSER_SERVICE_KEY_FILE=~/.genser/skey genser events send events.ndjson',
    ],
    async run(args, resolved, ctx) {
      const reporting = await withReporters(resolved, ctx);
      const { loadServiceKey } = await import('./keys.js');
      const { runSendEvents } = await import('../commands/events.js');
      const key = resolved.settings.sandbox ? undefined : loadServiceKey(resolved, ctx.env, ctx.log);
      return runSendEvents(args[0] as string[], resolved.settings, key, reporting);
    },
  },
  {
    name: 'events backfill',
    description:
      "turn an order export into complete_purchase and cancel_purchase events at the orders' own times, and send them",
    args: [['<file>', 'an order export (CSV, JSON, NDJSON, .gz; "-" reads stdin)']],
    examples: [
      'genser events backfill orders.csv --preset woocommerce --source https://shop.example.com --sandbox',
      'genser events backfill orders.csv --mapping orders.json --rate 20 --dry-run',
      'GENSER_BASE_URL=https://collect.example.com GENSER_SERVICE_KEY_FILE=~/.genser/skey genser events backfill orders.csv --preset shopify',
    ],
    async run(args, resolved, ctx) {
      const { loadServiceKey } = await import('./keys.js');
      const { runBackfillCommand } = await import('../commands/backfill.js');
      const s = resolved.settings;
      const key = s.sandbox || s.dryRun ? undefined : loadServiceKey(resolved, ctx.env, ctx.log);
      return runBackfillCommand(args[0] as string, s, key, ctx);
    },
  },
  {
    name: 'runs',
    description:
      "list the upload runs kept in the state directory, or print one run's report (`runs show ID`)",
    args: [['[words...]', 'nothing to list the runs; `show ID` for one run']],
    examples: [
      "genser runs                                       every target's runs, newest first",
      "genser runs show 1f2e3d4c --json                  that run's --json report",
    ],
    async run(args, resolved, ctx) {
      const { runRuns } = await import('../commands/runs.js');
      return runRuns(args[0] as string[], resolved.settings, ctx);
    },
  },
  {
    name: 'state',
    description:
      'copy every upload state from a state directory or PostgreSQL database into another (`state copy FROM TO`)',
    args: [['[words...]', '`copy FROM TO`: each a state directory or a postgres:// URL']],
    examples: [
      'genser state copy ~/.local/state/genser postgres://genser@db:5432/genser   SQLite into PostgreSQL',
      'genser state copy postgres://genser@db:5432/genser ./state                 and back',
    ],
    async run(args, _resolved, ctx) {
      const { runState } = await import('../commands/state.js');
      return runState(args[0] as string[], ctx);
    },
  },
  {
    name: 'doctor',
    description:
      'check what a run needs, step by step: Node, SQLite, the state directory and its lock; for each configured host the proxy, DNS, TCP, TLS, HTTP, the key and the clock',
    args: [],
    examples: [
      'genser doctor                                     every configured host (GENSER_API_URL, GENSER_BASE_URL, GENSER_SEARCH_URL)',
      'genser doctor --api-url https://api.example.com --json',
    ],
    async run(_args, resolved, ctx) {
      const { loadApiKey, loadServiceKey } = await import('./keys.js');
      const { runDoctorCommand } = await import('../commands/doctor.js');
      const keys = {
        api: loadApiKey(resolved, ctx.env, ctx.log)?.value,
        service: loadServiceKey(resolved, ctx.env, ctx.log)?.value,
      };
      return runDoctorCommand(resolved.settings, keys, ctx);
    },
  },
  {
    name: 'completion',
    description:
      'print a shell completion script: commands, their flags and the values of flags such as --format',
    args: [['<shell>', 'bash, zsh or fish']],
    examples: [
      'eval "$(genser completion bash)"                 in ~/.bashrc',
      'eval "$(genser completion zsh)"                  in ~/.zshrc, after compinit',
      'genser completion fish > ~/.config/fish/completions/genser.fish',
    ],
    async run(args, _resolved, ctx) {
      const { completionScript } = await import('./completion.js');
      ctx.stdout.write(completionScript(args[0] as string, COMMAND_DEFS));
      return 0;
    },
  },
];

/**
 * Parses `--reporter` (with `--json` and `--report`) before the command does any work, so a
 * bad value exits 2 at once; the command writes those reports at its end.
 */
async function withReporters(
  resolved: Resolved,
  ctx: CommandContext,
  stdoutTakenBy?: string,
): Promise<CommandContext> {
  const { reportersFrom } = await import('../commands/reporting.js');
  const s = resolved.settings as { reporter?: string[]; json?: boolean; report?: string };
  // As for every path in a config file, its reporters' files are relative to that file.
  const reporter =
    resolved.origins.reporter?.kind === 'config'
      ? s.reporter?.map((v) =>
          v.replace(/=(.+)$/, (_, file: string) =>
            file === '-' ? '=-' : `=${resolveFromConfig(resolved.origins.reporter?.file as string, file)}`,
          ),
        )
      : s.reporter;
  return { ...ctx, reporters: reportersFrom({ ...s, reporter }, ctx.env, { stdoutTakenBy }) };
}

/** Which sandbox keys were not given (so the sandbox makes them, or reuses those kept in its --db). */
function generatedKeys(resolved: Resolved): { apiKey: boolean; serviceKey: boolean; instanceKey: boolean } {
  const s = resolved.settings;
  return {
    apiKey: s.apiKey === undefined,
    serviceKey: s.serviceKey === undefined,
    instanceKey: s.instanceKey === undefined,
  };
}
