import { UsageError } from '../shared/errors.js';
import { copyStates } from '../upload/state/copy.js';
import { checkPostgresUrl, isPostgresUrl, type StateLocation } from '../upload/state/location.js';
import type { CommandContext } from './context.js';

/**
 * `genser state copy FROM TO` (docs/nightly.md, "Moving a state"): FROM and TO are each a state
 * directory or a postgres:// URL (its password from PGPASSWORD or ~/.pgpass: never on the
 * command line, which every user of the machine can see).
 */
function locationOf(text: string, label: string): StateLocation {
  if (!isPostgresUrl(text)) return { kind: 'dir', dir: text };
  return { kind: 'postgres', ...checkPostgresUrl(text, label, true) };
}

export async function runState(words: string[], ctx: CommandContext): Promise<number> {
  const [action, from, to, ...rest] = words;
  if (action !== 'copy' || from === undefined || to === undefined || rest.length > 0)
    throw new UsageError(
      `unknown state command '${words.join(' ')}'`,
      'use `genser state copy FROM TO` (each a state directory or a postgres:// URL)',
    );
  const lines = await copyStates(locationOf(from, 'FROM'), locationOf(to, 'TO'), ctx.env);
  if (lines.length === 0) ctx.log.info(`state: no upload state in ${from}: nothing to copy`);
  for (const line of lines) ctx.log.info(`state: ${line}`);
  return 0;
}
