import { type Command, Option } from 'commander';
import { UsageError } from '../../shared/errors.js';
import type { CommandContext } from '../main.js';
import { addFeedOptions } from '../options.js';

/**
 * `genser upload FILE...`: validate, batch and send products (issue 4). Heavy modules (undici,
 * the pipeline, the sandbox) are imported inside the action so `genser --version` stays fast.
 */
export function register(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('upload')
    .description('validate a feed, then send its valid products in bounded, concurrent, retried batches')
    .argument('<file...>', 'feed files (CSV, JSON, NDJSON; "-" reads stdin)');
  addFeedOptions(cmd)
    .option('--api-url <url>', 'product API host, e.g. https://api.example.com (env GENSER_API_URL)')
    .option('--api-key-file <file>', 'file holding the API key (or env GENSER_API_KEY); never the key itself')
    .addOption(new Option('--api-key <key>').hideHelp())
    .option('--batch-size <n>', 'products per request (default: 500)')
    .option('--max-batch-bytes <size>', 'largest request body, e.g. 5MB, 512k (default: 5MB)')
    .option('--concurrency <n>', 'requests in flight at most (default: 4)')
    .option('--retries <n>', 'retries of a failing request (default: 5)')
    .option('--retry-base <ms>', 'first backoff ceiling in ms, doubling per retry (default: 500)')
    .option('--retry-cap <ms>', 'largest backoff ceiling in ms (default: 30000)')
    .option('--timeout <seconds>', 'per-request timeout in seconds (default: 60)')
    .addOption(
      new Option('--type <type>', 'envelope type, standard format (default: create_product)').choices([
        'create_product',
        'update_product',
      ]),
    )
    .option('--agent <name>', 'agent name in the standard envelope (default: genser)')
    .option('--path <path>', 'request path (default: /collectors/products; legacy /searches/<kind>)')
    .option('--max-invalid <n|p%>', 'send nothing when more rows than this are invalid (10 or 2%)')
    .option('--dry-run', 'do everything but send; say how many batches and bytes it would send')
    .option('--sandbox', 'start an embedded sandbox on a free port and upload there')
    .option('--sandbox-db <file>', 'with --sandbox: keep the sandbox data in this SQLite file')
    .action(async (files: string[], flags: Record<string, unknown>) => {
      if (flags.apiKey !== undefined)
        throw new UsageError(
          'the API key is never taken from a flag (flags show in `ps` and shell history)',
          'set GENSER_API_KEY, or put the key in a file and pass --api-key-file FILE',
        );
      const { runUpload } = await import('../../commands/upload.js');
      ctx.exitCode = await runUpload(files, flags, ctx);
    });
}
