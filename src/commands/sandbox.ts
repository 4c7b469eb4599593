import { rmSync, writeFileSync } from 'node:fs';
import { describeFaults } from '../sandbox/faults.js';
import { type RunningSandbox, startSandbox } from '../sandbox/index.js';
import { type SandboxSettings, sandboxOptionsFrom } from '../sandbox/settings.js';
import { StoreVersionError } from '../sandbox/store.js';
import { ExitCode, ExitError } from '../shared/errors.js';
import { registerSecret } from '../shared/secrets.js';
import type { CommandContext } from './context.js';

/**
 * `genser sandbox`: run the emulated service until SIGINT/SIGTERM. The listening URL is the one
 * line on stdout (so `genser sandbox --port 0 > url.txt &` works; with --json, one JSON line with
 * the URL and the generated keys); everything else is on stderr.
 */
export async function runSandbox(
  s: SandboxSettings & { json?: boolean; pidFile?: string },
  generated: { apiKey: boolean; serviceKey: boolean; instanceKey: boolean },
  ctx: CommandContext,
): Promise<number> {
  const log = ctx.log;
  // Keys given to us are someone's: mask them in logs. Generated ones are test keys, printed once.
  if (s.apiKey) registerSecret(s.apiKey);
  if (s.serviceKey) registerSecret(s.serviceKey);
  const options = sandboxOptionsFrom(s);
  let sandbox: RunningSandbox;
  try {
    sandbox = await startSandbox({ ...options, log });
  } catch (err) {
    throw startError(err, s);
  }
  // Listen for signals before the URL is out: whoever reads it may stop us at once.
  const stopped = new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  // A script stops us with `kill "$(cat FILE)"`: the pid of this process, not of a wrapper (npx).
  if (s.pidFile) writePidFile(s.pidFile);
  if (s.json) {
    // One JSON document for scripts: the URL, plus the keys when they were generated here.
    const doc: Record<string, string> = { url: sandbox.url };
    if (generated.apiKey) doc.apiKey = sandbox.apiKey;
    if (generated.serviceKey) doc.serviceKey = sandbox.serviceKey;
    if (generated.instanceKey) doc.instanceKey = sandbox.instanceKey;
    ctx.stdout.write(`${JSON.stringify(doc)}\n`);
  } else ctx.stdout.write(`${sandbox.url}\n`);
  const stats = sandbox.stats() as { timeZone: string; nextBatchAt: string };
  // Written straight to stderr (not through the logger) so --quiet still shows generated keys.
  ctx.stderr.write(`genser sandbox listening on ${sandbox.url}\n`);
  if (generated.apiKey) ctx.stderr.write(`api key (apiKey, x-api-key): ${sandbox.apiKey}\n`);
  if (generated.serviceKey) ctx.stderr.write(`service key (serviceKey): ${sandbox.serviceKey}\n`);
  // The instance key is public (it sits in every shop page): printed whether given or generated.
  ctx.stderr.write(`instance key (instanceKey, search): ${sandbox.instanceKey}\n`);
  log.info(
    `demo page ${sandbox.url}/_sandbox/demo (search box wired with the client script ${sandbox.url}/genser.js)`,
  );
  log.info(
    `daily batch at 00:15 ${stats.timeZone} (next ${stats.nextBatchAt}); admin API ${sandbox.url}/_sandbox/stats; Ctrl-C stops`,
  );
  const faults = describeFaults(options.faults ?? {});
  if (faults) log.warn(`faults on: ${faults}`);
  await stopped;
  log.info('stopping: closing the server and the database');
  await sandbox.close();
  if (s.pidFile) rmSync(s.pidFile, { force: true });
  return ExitCode.ok;
}

function writePidFile(path: string): void {
  try {
    writeFileSync(path, `${process.pid}\n`);
  } catch (err) {
    throw new ExitError(
      ExitCode.usage,
      `cannot write the pid file ${path}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`,
      'check the --pid-file path',
    );
  }
}

function startError(err: unknown, s: SandboxSettings): unknown {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'EADDRINUSE')
    return new ExitError(
      ExitCode.usage,
      `port ${s.port} is already in use`,
      'pick another --port, or 0 for a free one',
    );
  if (e.code === 'EACCES' || e.code === 'EADDRNOTAVAIL')
    return new ExitError(ExitCode.usage, `cannot listen on ${s.host}:${s.port} (${e.code})`);
  if (err instanceof StoreVersionError)
    return new ExitError(ExitCode.usage, err.message, 'delete the file, or pick another --db');
  if (e.code === 'SQLITE_CANTOPEN' || e.code === 'SQLITE_NOTADB')
    return new ExitError(ExitCode.usage, `cannot open the database ${s.db}`, 'check the --db path');
  return err;
}
