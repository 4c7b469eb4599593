import type { Command } from 'commander';
import type { CommandContext } from '../main.js';
import { addFeedOptions } from '../options.js';

/** `genser validate <file...>`: check feeds, write nothing. The work is imported lazily. */
export function register(program: Command, ctx: CommandContext): void {
  const cmd = program
    .command('validate')
    .description(
      'check feeds against the service schemas; print problems by row (exit 0 valid, 1 invalid, 2 usage)',
    )
    .argument('<file...>', 'feed files (CSV, JSON, NDJSON, .gz; - for stdin)');
  addFeedOptions(cmd);
  cmd.action(async (files: string[], flags: Record<string, unknown>) => {
    const { runValidate } = await import('../../commands/validate.js');
    await runValidate(files, flags, ctx);
  });
}
