import type { Command } from 'commander';
import { ExitCode, ExitError } from '../../errors.js';
import type { CommandContext } from '../main.js';

// Placeholder while the command is being built; replaced by its own issue's work.
export function register(program: Command, _ctx: CommandContext): void {
  program
    .command('convert')
    .description('(not built yet)')
    .action(() => {
      throw new ExitError(ExitCode.internal, 'convert is not built yet');
    });
}
