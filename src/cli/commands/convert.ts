import { type Command, Option } from 'commander';
import type { CommandContext } from '../main.js';
import { addFeedOptions } from '../options.js';

/** `genser convert <file>`: write the mapped payloads. The work is imported lazily. */
export function register(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('convert')
    .description(
      'write the built payloads of the valid rows: standard NDJSON of products (or envelopes), legacy JSON array',
    )
    .argument('<file>', 'feed file (CSV, JSON, NDJSON, .gz; - for stdin)');
  addFeedOptions(cmd)
    .option('-o, --output <file>', 'write here instead of stdout')
    .option('--envelope', 'standard: write request envelopes (one per line) instead of product nodes')
    .option('--batch-size <n>', 'products per envelope with --envelope (default: 500)')
    .addOption(
      new Option('--type <type>', 'envelope type (default: create_product)').choices([
        'create_product',
        'update_product',
      ]),
    )
    .option('--agent <name>', 'envelope agent name (default: genser)');
  cmd.action(async (file: string, flags: Record<string, unknown>) => {
    const { runConvert } = await import('../../commands/convert.js');
    await runConvert(file, flags, ctx);
  });
}
