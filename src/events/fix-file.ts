import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errorMessage, UsageError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import type { Issue } from '../shared/types.js';
import { checkEvent } from './check.js';
import { type EventFix, fixEvent } from './quirks.js';
import { type EventsForm, readEvents } from './read.js';
import { type EventReadSettings, eventIssue, readProblem } from './source.js';

/**
 * `genser events validate FILE --fix -o OUT`: writes a copy of an events file with the contract's
 * sample quirks fixed (src/events/quirks.ts), in the form it came in (one object, a JSON array,
 * NDJSON). The copy is written to a temporary file next to OUT and renamed when complete, and
 * only when every event could be read: a copy that silently lost an unreadable line would be
 * worse than none. Problems that are not quirks are listed, not guessed at.
 */

export interface FixedLine extends EventFix {
  file: string;
  row: number;
  line: number;
}

export interface FixFileResult {
  events: number;
  /** Events with at least one fix. */
  fixedEvents: number;
  fixes: FixedLine[];
  /** Read problems and what is still wrong after fixing. */
  problems: Issue[];
  /** False when read problems kept the copy from being written. */
  written: boolean;
  form: EventsForm;
}

export async function fixEventsFile(
  input: string,
  output: string,
  settings: Pick<EventReadSettings, 'encoding' | 'inputType' | 'forcedType'>,
  log: Logger,
  stdin?: NodeJS.ReadableStream,
): Promise<FixFileResult> {
  const seen: { form?: EventsForm } = {};
  const result: FixFileResult = {
    events: 0,
    fixedEvents: 0,
    fixes: [],
    problems: [],
    written: false,
    form: 'ndjson',
  };
  let unreadable = 0;
  const copy = new Copy(output);
  try {
    const options = { encoding: settings.encoding, inputType: settings.inputType };
    for await (const item of readEvents(input, options, log, stdin, seen)) {
      if (item.type === 'issue') {
        if (item.issue.severity !== 'error') continue;
        unreadable++;
        result.problems.push(readProblem(item.issue));
        continue;
      }
      const { record } = item;
      result.events++;
      const { event, fixes } = fixEvent(record.fields, settings.forcedType);
      if (fixes.length > 0) result.fixedEvents++;
      for (const f of fixes)
        result.fixes.push({ file: record.file, row: record.row, line: record.line, ...f });
      const check = checkEvent(event, settings.forcedType);
      if (!check.ok) {
        for (const p of check.problems) result.problems.push(eventIssue(record, check.kind, p));
      }
      if (unreadable === 0) await copy.add(event, seen.form ?? 'ndjson');
    }
    result.form = seen.form ?? 'ndjson';
    if (unreadable > 0) {
      await copy.discard();
      return result;
    }
    await copy.commit(result.form);
    result.written = true;
    return result;
  } catch (err) {
    await copy.discard();
    throw err;
  }
}

/** The corrected copy, streamed to a temporary file next to the output and renamed when complete. */
class Copy {
  private out: WriteStream | undefined;
  private readonly temp: string;
  private count = 0;
  private error: Error | undefined;

  constructor(private readonly path: string) {
    this.temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`);
  }

  private async write(text: string): Promise<void> {
    if (!this.out) {
      const out = createWriteStream(this.temp, { flags: 'wx' });
      this.out = out;
      // A write error surfaces at the next write, drain or finish; kept here so it is never unhandled.
      out.on('error', (err) => {
        this.error ??= err;
      });
      try {
        await once(out, 'open');
      } catch (err) {
        throw this.unwritable(err);
      }
    }
    if (this.error) throw this.unwritable(this.error);
    if (!this.out.write(text)) await once(this.out, 'drain');
  }

  private unwritable(err: unknown): UsageError {
    return new UsageError(
      `${this.path}: cannot write the corrected copy (${errorMessage(err)})`,
      'Check that the folder exists and is writable.',
    );
  }

  async add(event: Record<string, unknown>, form: EventsForm): Promise<void> {
    const pretty = form !== 'ndjson';
    const json = pretty ? JSON.stringify(event, null, 2) : JSON.stringify(event);
    if (form === 'ndjson') await this.write(`${json}\n`);
    else if (form === 'object') await this.write(`${json}\n`);
    else await this.write(`${this.count === 0 ? '[\n' : ',\n'}${json.replace(/^/gm, '  ')}`);
    this.count++;
  }

  async commit(form: EventsForm): Promise<void> {
    if (form === 'array') await this.write(this.count === 0 ? '[]\n' : '\n]\n');
    else if (this.count === 0) await this.write('');
    const out = this.out!;
    out.end();
    try {
      await once(out, 'finish');
      if (this.error) throw this.error;
      await rename(this.temp, this.path);
    } catch (err) {
      throw this.unwritable(err);
    }
  }

  async discard(): Promise<void> {
    if (!this.out) return;
    this.out.destroy();
    await rm(this.temp, { force: true });
  }
}
