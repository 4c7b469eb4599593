import { type Command, Option } from 'commander';
import { UsageError } from '../../shared/errors.js';
import type { CommandContext } from '../main.js';
import { addCommonOptions, ENCODINGS } from '../options.js';

/**
 * `genser events example|validate|send`: the eleven behaviour events of contract section 2.6.
 * Heavy modules load inside the actions so `genser --version` stays fast.
 */
export function register(program: Command, ctx: CommandContext): void {
  const events = program
    .command('events')
    .description('print example behaviour events, validate event files, send them to the collection host');

  addCommonOptions(
    events
      .command('example')
      .description('print a valid example event of a kind (all kinds as NDJSON when none is named)')
      .argument('[type]', 'event type, e.g. view_product, complete_purchase')
      .option('--list', 'list the event types with their paths'),
  ).action(async (type: string | undefined, flags: Record<string, unknown>) => {
    const { runExample } = await import('../../commands/events.js');
    ctx.exitCode = runExample(type, flags, ctx);
  });

  const readOptions = (cmd: Command) =>
    addCommonOptions(cmd)
      .option('--type <type>', 'treat every event as this kind (default: each event\'s own "type" or "id")')
      .addOption(
        new Option('--input-type <type>', 'input type (default: from the extension)').choices([
          'json',
          'ndjson',
        ]),
      )
      .addOption(new Option('--encoding <name>', 'input encoding (default: auto)').choices(ENCODINGS))
      .option('--max-errors <n>', 'list at most this many problems in detail (default: 20)');

  readOptions(
    events
      .command('validate')
      .description('check event files (a JSON event, a JSON array, or NDJSON) against the event schemas')
      .argument('<file...>', 'event files; "-" reads stdin'),
  ).action(async (files: string[], flags: Record<string, unknown>) => {
    const { runValidateEvents } = await import('../../commands/events.js');
    ctx.exitCode = await runValidateEvents(files, flags, ctx);
  });

  readOptions(
    events
      .command('send')
      .description(
        'validate, then send each event to its endpoint with serviceKey, requestId and Idempotency-Key',
      )
      .argument('<file...>', 'event files; "-" reads stdin'),
  )
    .option('--base-url <url>', 'collection host, e.g. https://collect.example.com (env GENSER_BASE_URL)')
    .option(
      '--service-key-file <file>',
      'file holding the service key (or env GENSER_SERVICE_KEY); never the key itself',
    )
    .addOption(new Option('--service-key <key>').hideHelp())
    .option('--concurrency <n>', 'requests in flight at most (default: 4)')
    .option('--retries <n>', 'retries of a failing request (default: 5)')
    .option('--timeout <seconds>', 'per-request timeout in seconds (default: 30)')
    .option('--sandbox', 'start an embedded sandbox on a free port and send there')
    .action(async (files: string[], flags: Record<string, unknown>) => {
      if (flags.serviceKey !== undefined)
        throw new UsageError(
          'the service key is never taken from a flag (flags show in `ps` and shell history)',
          'set GENSER_SERVICE_KEY, or put the key in a file and pass --service-key-file FILE',
        );
      const { runSendEvents } = await import('../../commands/events.js');
      ctx.exitCode = await runSendEvents(files, flags, ctx);
    });
}
