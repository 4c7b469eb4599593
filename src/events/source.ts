import type { Logger } from '../shared/logger.js';
import type { EncodingName, InputType, Issue } from '../shared/types.js';
import { checkEvent } from './check.js';
import { canonicalJson, eventIdentity, eventKey } from './keys.js';
import { readEvents } from './read.js';
import type { EventToSend } from './send.js';

/**
 * Every event of every events file, read (src/events/read.ts), checked (src/events/check.ts) and
 * made ready to send with its Idempotency-Key (src/events/keys.ts), in file order. Read problems
 * and check problems become problem lines naming file, row, line and JSON pointer.
 */

export interface EventReadSettings {
  encoding: EncodingName;
  inputType?: InputType;
  /** Every event is treated as this kind (`--type`). */
  forcedType?: string;
  /** Fresh UUID v4 keys instead of name-based ones (`--new-keys`). */
  newKeys?: boolean;
}

/** One event that failed its check, or a line that could not be read (row 0: the whole file). */
export interface EventProblemLine {
  file: string;
  row: number;
  line: number;
  /** The event type, when the event said which one it is. */
  type?: string;
  /** JSON pointer of the offending member (empty: the whole event). */
  pointer: string;
  message: string;
  /** The named problem (a contract sample quirk, ...), when there is one. */
  code?: string;
}

export type CheckedEvent =
  | { kind: 'event'; send: EventToSend }
  | { kind: 'problem'; problem: EventProblemLine };

export async function* checkedEvents(
  files: string[],
  settings: EventReadSettings,
  log: Logger,
  stdin?: NodeJS.ReadableStream,
): AsyncGenerator<CheckedEvent> {
  for (const file of files) {
    const options = { encoding: settings.encoding, inputType: settings.inputType };
    for await (const item of readEvents(file, options, log, stdin)) {
      if (item.type === 'issue') {
        const i = item.issue;
        if (i.severity === 'error') {
          yield { kind: 'problem', problem: readProblem(i) };
        }
        continue;
      }
      const { record } = item;
      const check = checkEvent(record.fields, settings.forcedType);
      if (check.ok) {
        yield {
          kind: 'event',
          send: {
            file: record.file,
            row: record.row,
            line: record.line,
            kind: check.kind,
            // The canonical form: the same event always goes with the same key and the same bytes,
            // so a re-send is replayed by the service, never refused as "same key, other body".
            body: canonicalJson(record.fields),
            idempotencyKey: eventKey(eventIdentity(record.fields, check.kind), settings),
          },
        };
        continue;
      }
      for (const p of check.problems) {
        yield {
          kind: 'problem',
          problem: { file: record.file, row: record.row, line: record.line, type: check.kind?.type, ...p },
        };
      }
    }
  }
}

/** A read problem (a line that is not JSON, a file that cannot be read) as an event problem line. */
export function readProblem(i: Issue): EventProblemLine {
  return {
    file: i.file,
    row: i.row ?? 0,
    line: i.line ?? 0,
    pointer: i.column ?? '',
    message: i.message,
    code: i.code,
  };
}

export function problemText(p: EventProblemLine): string {
  const at = p.pointer ? ` ${p.pointer}` : '';
  return `${p.file} row ${p.row} (line ${p.line}${p.type ? `, ${p.type}` : ''}):${at} ${p.message}`;
}
