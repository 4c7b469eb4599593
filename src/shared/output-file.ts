import { once } from 'node:events';
import { chmodSync, createWriteStream, renameSync, rmSync, statSync, type WriteStream } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * `convert -o FILE`: the output is written to a temporary file beside FILE and renamed over it
 * only when the run completes, so a run that stops half-way (an undecodable byte, a bug, Ctrl-C)
 * never leaves a truncated feed where the next step of a nightly job would pick it up; the
 * previous file stays as it was. Devices and pipes (`-o /dev/stdout`) are written directly.
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
    this.temp = join(dirname(path), `.${basename(path)}.genser-${process.pid}.tmp`);
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
    this.stream.destroy();
    if (this.temp !== undefined) rmSync(this.temp, { force: true });
  }

  private stopListening(): void {
    process.removeListener('SIGINT', this.onSignal);
    process.removeListener('SIGTERM', this.onSignal);
  }
}

function statOrUndefined(path: string) {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}
