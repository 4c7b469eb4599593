import { decodeChunks } from '../read/decode.js';
import type { ConcreteEncoding } from '../read/detect-encoding.js';
import { inputTypeFromName, type ReadOptions, readFeed, readPlanned } from '../read/index.js';
import { issueItem } from '../read/issues.js';
import { readNdjson } from '../read/ndjson.js';
import { planRead } from '../read/plan.js';
import { jsonParseDetail, positionIn } from '../read/shape.js';
import { UsageError } from '../shared/errors.js';
import { isObject } from '../shared/is-object.js';
import type { Logger } from '../shared/logger.js';
import type { ReadItem } from '../shared/types.js';

/**
 * Reads an events file: a JSON array of events, NDJSON (one event per line), or one JSON event
 * object (what `genser events example TYPE` prints). Arrays and NDJSON go through the feed
 * readers unchanged (streamed, with row and line of each event); a file whose JSON starts with
 * `{` is one event, or NDJSON when its first line is a whole object on its own.
 */

/** One event object bigger than this is not an event: refuse rather than hold it in memory. */
export const SINGLE_EVENT_LIMIT = 16 * 1024 * 1024;

/** How the events stood in the file: one object, a JSON array, or NDJSON. */
export type EventsForm = 'object' | 'array' | 'ndjson';

export async function* readEvents(
  source: string,
  options: ReadOptions,
  log: Logger,
  stdin?: NodeJS.ReadableStream,
  /** Filled in while reading: the form of the file (for writing a corrected copy in the same form). */
  seen: { form?: EventsForm } = {},
): AsyncGenerator<ReadItem> {
  const type = options.inputType ?? inputTypeFromName(source);
  seen.form = type === 'json' ? 'array' : 'ndjson';
  if (type !== 'json') {
    yield* readFeed(source, options, log, stdin);
    return;
  }
  const plan = await planRead(source, options, log, stdin);
  if (!('bytes' in plan)) {
    yield plan;
    return;
  }
  if (firstCharacter(plan.head, plan.encoding) !== '{') {
    // An array (or something the feed reader will explain): read as a feed, from the same plan.
    yield* readPlanned(plan, log);
    return;
  }
  try {
    const text = await wholeText(plan.bytes, plan.encoding, plan.file);
    yield* readObjectText(text, plan.file, log, plan.autoEncoding, seen);
  } finally {
    await plan.close();
  }
}

/** The first character that is not white space or a byte order mark, in the file's encoding. */
function firstCharacter(head: Buffer, encoding: ConcreteEncoding): string | undefined {
  let text: string;
  if (encoding === 'utf-16le')
    text = head.subarray(0, 256 - (Math.min(256, head.length) % 2)).toString('utf16le');
  else if (encoding === 'utf-16be') {
    const even = head.subarray(0, Math.min(256, head.length) & ~1);
    text = Buffer.from(even).swap16().toString('utf16le');
  } else text = head.subarray(0, 256).toString('latin1');
  return /[^\s\uFEFF\u00EF\u00BB\u00BF]/.exec(text)?.[0];
}

async function wholeText(
  chunks: AsyncIterable<Buffer>,
  encoding: ConcreteEncoding,
  file: string,
): Promise<string> {
  const parts: string[] = [];
  let length = 0;
  for await (const text of decodeChunks(chunks, encoding)) {
    length += text.length;
    if (length > SINGLE_EVENT_LIMIT) {
      throw new UsageError(
        `${file}: one JSON object of more than ${SINGLE_EVENT_LIMIT / 1024 / 1024} MiB is not an event`,
        'Give several events as a JSON array or as NDJSON (one event per line).',
      );
    }
    parts.push(text);
  }
  return parts.join('');
}

async function* readObjectText(
  text: string,
  file: string,
  log: Logger,
  autoEncoding: boolean,
  seen: { form?: EventsForm },
): AsyncGenerator<ReadItem> {
  const body = text.replace(/^\uFEFF/, '');
  const lead = body.length - body.trimStart().length;
  const startLine = 1 + countLines(body.slice(0, lead));
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    if (looksLikeNdjson(body)) {
      seen.form = 'ndjson';
      yield* readNdjson(once(body), { file, autoEncoding, log });
      return;
    }
    const { reason, offset } = jsonParseDetail(err);
    const at = offset === undefined ? undefined : positionIn(body, offset, 1);
    const where = at ? ` at line ${at.line}, column ${at.column}` : '';
    yield issueItem(
      'invalid_json',
      file,
      `${file}: not valid JSON${where} (${reason}). An events file is one JSON event object, a JSON array of events, or NDJSON (one event per line)`,
      at ? { line: at.line } : {},
    );
    return;
  }
  if (isObject(value) && Array.isArray(value['@graph'])) {
    yield issueItem(
      'invalid_json',
      file,
      `${file}: this is a product feed (a standard envelope with "@graph"), not events. Check it with genser validate`,
    );
    return;
  }
  seen.form = 'object';
  yield {
    type: 'record',
    record: { file, row: 1, line: startLine, fields: value as Record<string, unknown>, shape: 'rows' },
  };
}

/** NDJSON saved as .json: the first non-blank line is a complete JSON object on its own. */
function looksLikeNdjson(text: string): boolean {
  const first = text.split('\n').find((l) => l.trim() !== '');
  if (!first) return false;
  try {
    return isObject(JSON.parse(first));
  } catch {
    return false;
  }
}

async function* once(text: string): AsyncGenerator<string> {
  yield text;
}

function countLines(text: string): number {
  let n = 0;
  for (const c of text) if (c === '\n') n++;
  return n;
}
