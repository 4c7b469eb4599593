import { messageWithHint } from '../shared/issue-collector.js';
import type { Logger } from '../shared/logger.js';
import type { EncodingName, InputType, Issue } from '../shared/types.js';
import { checkEvent, type EventProblem } from './check.js';
import { canonicalJson, eventIdentity, eventKey } from './keys.js';
import type { EventKind } from './kinds.js';
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

export type CheckedEvent = { kind: 'event'; send: EventToSend } | { kind: 'problem'; problem: Issue };

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
      for (const p of check.problems) yield { kind: 'problem', problem: eventIssue(record, check.kind, p) };
    }
  }
}

/** A check problem of the event at `at` as the one problem type (src/shared/types.ts). */
export function eventIssue(
  at: { file: string; row: number; line: number },
  kind: EventKind | undefined,
  p: EventProblem,
): Issue {
  return {
    severity: 'error',
    code: p.code ?? 'invalid_event',
    file: at.file,
    row: at.row,
    line: at.line,
    ...(kind ? { type: kind.type } : {}),
    ...(p.pointer ? { field: p.pointer } : {}),
    message: p.message,
  };
}

/** A read problem (a line that is not JSON, a file that cannot be read): the reader's issue, an error. */
export function readProblem(i: Issue): Issue {
  return { ...i, severity: 'error' };
}

/** Where in the event: the JSON pointer of a checked event, or the column of an order export. */
export function problemPlace(p: Issue): string {
  return p.field ?? p.column ?? '';
}

export function problemText(p: Issue): string {
  const place = problemPlace(p);
  const at = place ? ` ${place}` : '';
  return `${p.file} row ${p.row ?? 0} (line ${p.line ?? 0}${p.type ? `, ${p.type}` : ''}):${at} ${messageWithHint(p)}`;
}
