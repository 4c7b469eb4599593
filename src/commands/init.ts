import { existsSync, writeFileSync } from 'node:fs';
import { initMapping, initSummaryLines } from '../init/index.js';
import { UsageError } from '../shared/errors.js';
import { printable } from '../shared/printable.js';
import type { EncodingName, InputType } from '../shared/types.js';
import type { CommandContext } from './context.js';

/** `genser init FILE`: draft `genser.mapping.json` from a feed's header and a sample of its rows. */
export interface InitSettings {
  output?: string;
  force?: boolean;
  json?: boolean;
  encoding: EncodingName;
  delimiter?: string;
  inputType?: InputType;
  country: string;
}

export async function runInit(file: string, s: InitSettings, ctx: CommandContext): Promise<number> {
  if (file !== '-' && !existsSync(file))
    throw new UsageError(`input file ${file} does not exist`, 'check the path (use - to read stdin)');
  const out = s.output ?? 'genser.mapping.json';
  if (existsSync(out) && !s.force)
    throw new UsageError(`${out} exists already`, 'pass --force to replace it, or -o another file');
  const result = await initMapping(
    file,
    { encoding: s.encoding, delimiter: s.delimiter, inputType: s.inputType, country: s.country },
    ctx.log,
  );
  try {
    writeFileSync(out, `${JSON.stringify(result.mapping, null, 2)}\n`);
  } catch (err) {
    throw new UsageError(`cannot write ${out}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (s.json) ctx.stdout.write(`${JSON.stringify({ written: out, ...result }, null, 2)}\n`);
  // Column names are the feed's: printed escaped.
  else for (const line of initSummaryLines(result, out)) ctx.stderr.write(`${printable(line)}\n`);
  return 0;
}
