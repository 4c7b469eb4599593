import type { Command } from 'commander';
import type { CommandContext } from '../main.js';
import { addCommonOptions, sourcesFor } from '../options.js';

/**
 * `genser sandbox`: run the emulated service until SIGINT/SIGTERM. The listening URL is the one
 * line on stdout (so `genser sandbox --port 0 > url.txt &` works; with --json, one JSON line with
 * the URL and the generated keys); everything else is on stderr.
 * Heavy modules (SQLite, Ajv, the server) load inside the action, keeping `genser --version` fast.
 */
export function register(program: Command, ctx: CommandContext): void {
  addCommonOptions(
    program
      .command('sandbox')
      .description('run a local emulation of the service (event collection + product ingestion hosts)'),
  )
    .option('--port <n>', 'port to listen on; 0 picks a free one (default: 8080)')
    .option('--host <address>', 'address to bind (default: 127.0.0.1)')
    .option('--db <file>', 'SQLite file that keeps data across restarts (default: in memory)')
    .option(
      '--api-key <key>',
      'key for apiKey / x-api-key (default: generated, printed once); env GENSER_API_KEY',
    )
    .option(
      '--service-key <key>',
      'key for serviceKey (default: generated, printed once); env GENSER_SERVICE_KEY',
    )
    .option('--country <code>', 'country whose 00:15 runs the daily batch (default: KR, Asia/Seoul)')
    .option('--admin-email <address>', 'where batch completion notices go (default: admin@example.com)')
    .option('--max-body <size>', 'largest request body, e.g. 10MiB (default), 512k')
    .option('--idempotency-ttl <duration>', 'how long Idempotency-Keys are remembered (default: 24h)')
    .option('--legacy-products-path <path>', 'legacy products path (default: /searches/products)')
    .option('--legacy-contents-path <path>', 'legacy contents path (default: /searches/contents)')
    .option('--legacy-filters-path <path>', 'legacy filters path (default: /searches/filters)')
    .option('--fail-rate <r>', 'fault: answer this share of requests with --fail-status (0-1)')
    .option('--fail-status <code>', 'fault: 500 or 503 (default: 503)')
    .option('--latency <ms>', 'fault: delay each request, e.g. 200 or 100-400')
    .option('--reset-rate <r>', 'fault: drop the connection for this share of requests (0-1)')
    .option('--rate-limit <n>', 'fault: at most n requests per second, then 429 with Retry-After')
    .option('--lost-rate <r>', 'fault: process, then answer 500 for this share of requests (0-1)')
    .option('--seed <n>', 'seed for the fault dice, for repeatable runs')
    .action(async (flags: Record<string, unknown>) => {
      const { resolveSandboxSettings } = await import('../../sandbox/settings.js');
      const { createLogger } = await import('../terminal.js');
      const { registerSecret } = await import('../../shared/secrets.js');
      const settings = resolveSandboxSettings(sourcesFor(flags, ctx.env));
      const log = createLogger(
        { quiet: settings.options.quiet, debug: Boolean(flags.debug) },
        ctx.stderr,
        ctx.env,
      );
      // Keys given to us are someone's: mask them in logs. Generated ones are test keys, printed once.
      if (!settings.generated.apiKey && settings.options.apiKey) registerSecret(settings.options.apiKey);
      if (!settings.generated.serviceKey && settings.options.serviceKey)
        registerSecret(settings.options.serviceKey);

      const { startSandbox } = await import('../../sandbox/index.js');
      const { ExitError, ExitCode } = await import('../../shared/errors.js');
      let sandbox: Awaited<ReturnType<typeof startSandbox>>;
      try {
        sandbox = await startSandbox({ ...settings.options, log });
      } catch (err) {
        const e = err as NodeJS.ErrnoException;
        if (e.code === 'EADDRINUSE')
          throw new ExitError(
            ExitCode.usage,
            `port ${settings.port} is already in use`,
            'pick another --port, or 0 for a free one',
          );
        if (e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL')
          throw new ExitError(
            ExitCode.usage,
            `cannot listen on ${settings.options.host}:${settings.port} (${e.code})`,
          );
        const { StoreVersionError } = await import('../../sandbox/store.js');
        if (err instanceof StoreVersionError)
          throw new ExitError(ExitCode.usage, err.message, 'delete the file, or pick another --db');
        if (e.code === 'SQLITE_CANTOPEN' || e.code === 'SQLITE_NOTADB')
          throw new ExitError(
            ExitCode.usage,
            `cannot open the database ${settings.options.db}`,
            'check the --db path',
          );
        throw err;
      }
      // Listen for signals before the URL is out: whoever reads it may stop us at once.
      const stopped = new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      if (flags.json) {
        // One JSON document for scripts: the URL, plus the keys when they were generated here.
        const doc: Record<string, string> = { url: sandbox.url };
        if (settings.generated.apiKey) doc.apiKey = sandbox.apiKey;
        if (settings.generated.serviceKey) doc.serviceKey = sandbox.serviceKey;
        ctx.stdout.write(`${JSON.stringify(doc)}\n`);
      } else ctx.stdout.write(`${sandbox.url}\n`);
      const stats = sandbox.stats() as { timeZone: string; nextBatchAt: string };
      // Written straight to stderr (not through the logger) so --quiet still shows generated keys.
      ctx.stderr.write(`genser sandbox listening on ${sandbox.url}\n`);
      if (settings.generated.apiKey) ctx.stderr.write(`api key (apiKey, x-api-key): ${sandbox.apiKey}\n`);
      if (settings.generated.serviceKey)
        ctx.stderr.write(`service key (serviceKey): ${sandbox.serviceKey}\n`);
      log.info(
        `daily batch at 00:15 ${stats.timeZone} (next ${stats.nextBatchAt}); admin API ${sandbox.url}/_sandbox/stats; Ctrl-C stops`,
      );
      const { describeFaults } = await import('../../sandbox/faults.js');
      const faults = describeFaults(settings.options.faults ?? {});
      if (faults) log.warn(`faults on: ${faults}`);
      await stopped;
      log.info('stopping: closing the server and the database');
      await sandbox.close();
      ctx.exitCode = 0;
    });
}
