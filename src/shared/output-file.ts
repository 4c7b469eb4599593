import { once } from 'node:events';
import {
  chmodSync,
  createWriteStream,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  type WriteStream,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { processAlive } from './process-alive.js';

/**
 * `convert -o FILE`: the output is written to a temporary file beside FILE and renamed over it
 * only when the run completes, so a run that stops half-way (an undecodable byte, a bug, Ctrl-C)
 * never leaves a truncated feed where the next step of a nightly job would pick it up; the
 * previous file stays as it was. Devices and pipes (`-o /dev/stdout`) are written directly.
 * A run killed outright (kill -9, a power cut) cannot remove its temporary file; the next run
 * to the same FILE removes those of processes that are gone.
 */
export class OutputFile {
  readonly stream: WriteStream;
  private readonly temp: string | undefined;
  private readonly mode: number | undefined;
  private readonly onSignal = (signal: NodeJS.Signals) => {
    this.discard();
    // Then die of the signal as if nobody had listened (exit status 130 / 143).
    process.kill(process.pid, signal);
  };

  constructor(readonly path: string) {
    const existing = statOrUndefined(path);
    if (existing && !existing.isFile()) {
      this.stream = createWriteStream(path);
      return;
    }
    this.mode = existing ? existing.mode & 0o7777 : undefined;
    removeDeadTemps(path);
    this.temp = join(dirname(path), tempName(path, process.pid));
    this.stream = createWriteStream(this.temp);
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
  }

  /** Ends the stream and puts the complete file in place. */
  async commit(): Promise<void> {
    this.stream.end();
    await once(this.stream, 'finish');
    this.stopListening();
    if (this.temp === undefined) return;
    if (this.mode !== undefined) chmodSync(this.temp, this.mode);
    renameSync(this.temp, this.path);
  }

  /** Drops what was written; FILE is left as it was before the run. */
  discard(): void {
    this.stopListening();
    const temp = this.temp;
    // A run that fails at once may discard before the file is open: it appears when the open
    // completes, so it is removed again once the stream has closed.
    if (temp !== undefined && this.stream.pending)
      this.stream.once('close', () => rmSync(temp, { force: true }));
    this.stream.destroy();
    if (temp !== undefined) rmSync(temp, { force: true });
  }

  private stopListening(): void {
    process.removeListener('SIGINT', this.onSignal);
    process.removeListener('SIGTERM', this.onSignal);
  }
}

/**
 * The same for a document written at once (a report): the text goes to a temporary file beside
 * `path` that is renamed over it when complete. A full disk or any other failure leaves `path`
 * as it was (never a truncated report) and removes the temporary file; the error is thrown.
 */
export function writeWholeFile(path: string, text: string): void {
  const existing = statOrUndefined(path);
  if (existing && !existing.isFile()) {
    writeFileSync(path, text);
    return;
  }
  removeDeadTemps(path);
  const temp = join(dirname(path), tempName(path, process.pid));
  try {
    writeFileSync(temp, text);
    if (existing) chmodSync(temp, existing.mode & 0o7777);
    renameSync(temp, path);
  } catch (err) {
    rmSync(temp, { force: true });
    throw err;
  }
}

const tempName = (path: string, pid: number) => `.${basename(path)}.genser-${pid}.tmp`;

/** Removes the temporary files beside `path` left by runs whose process is gone. */
export function removeDeadTemps(path: string): string[] {
  const dir = dirname(path);
  const prefix = `.${basename(path)}.genser-`;
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue;
    const pidText = name.slice(prefix.length, -'.tmp'.length);
    const pid = Number(pidText);
    if (!/^\d+$/.test(pidText) || pid === process.pid || processAlive(pid)) continue;
    try {
      rmSync(join(dir, name), { force: true });
      removed.push(name);
    } catch {
      // not ours to remove (permissions): left for its owner
    }
  }
  return removed;
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
