import { PassThrough } from 'node:stream';
import { type Io, main } from '../../src/cli/main.js';

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** The real CLI entry (main), in this process, with its output captured and plain. */
export async function genser(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => {
    out += String(c);
  });
  stderr.on('data', (c) => {
    err += String(c);
  });
  const io: Io = { stdout, stderr, env: { NO_COLOR: '1', GENSER_THREADS: '0', ...env }, exitCode: 0 };
  const code = await main(['node', 'genser', ...args], io);
  return { code, stdout: out, stderr: err };
}
