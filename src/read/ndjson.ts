import { isObject } from '../shared/is-object.js';
import { MAX_RECORD_DEPTH, tooDeepAt } from '../shared/json-depth.js';
import type { Logger } from '../shared/logger.js';
import type { ReadItem } from '../shared/types.js';
import { InvalidBytesError, invalidBytesUsage } from './bad-bytes.js';
import { issueItem, lineAt, positioned, readIssue } from './issues.js';
import { PENDING_LIMIT } from './limits.js';
import { jsonNul, nulIssue } from './nul.js';
import { positionIn, shapeOf, syntaxDetail } from './shape.js';

export interface JsonOptions {
  file: string;
  autoEncoding: boolean;
  log: Logger;
  /** Longest NDJSON line or JSON element kept (tests make it small). */
  pendingLimit?: number;
}

/** One non-blank line of an NDJSON file: its record, or the issue that skips it. */
function lineItem(text: string, file: string, row: number, at: number): ReadItem {
  const nul = jsonNul(text);
  if (nul) {
    const issue = nulIssue(file, positioned`line ${lineAt(at)}`, { row, line: at, column: nul.field });
    return { type: 'issue', issue };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const { reason, offset } = syntaxDetail(text, err);
    const column = `, column ${positionIn(text, offset ?? 0, at).column}`;
    return {
      type: 'issue',
      issue: readIssue(
        'invalid_json',
        file,
        positioned`line ${lineAt(at)}${column}: not valid JSON (${reason}); the line is skipped. Each line must hold one complete JSON object`,
        { row, line: at },
      ),
    };
  }
  const deep = tooDeepAt(text, MAX_RECORD_DEPTH);
  if (deep !== -1) {
    return issueItem(
      'too_deep',
      file,
      positioned`line ${lineAt(at)}: nests arrays or objects more than ${MAX_RECORD_DEPTH} levels deep (column ${deep + 1}); the line is skipped. A product needs no such nesting: check how the file was made`,
      { row, line: at },
    );
  }
  if (!isObject(value)) {
    return {
      type: 'issue',
      issue: readIssue(
        'not_an_object',
        file,
        positioned`line ${lineAt(at)}: holds a JSON ${kindOf(value)}, not an object; the line is skipped`,
        {
          row,
          line: at,
        },
      ),
    };
  }
  return { type: 'record', record: { file, row, line: at, fields: value, shape: shapeOf(value) } };
}

/** One JSON object per line; blank lines skipped; a bad line is an issue and reading goes on. */
export async function* readNdjson(
  texts: AsyncIterable<string>,
  options: JsonOptions,
): AsyncGenerator<ReadItem> {
  const { file } = options;
  const limit = options.pendingLimit ?? PENDING_LIMIT;
  let carry = '';
  let line = 1;
  let row = 0;
  let sawText = false;
  /** Dropping the rest of an overlong line. */
  let skipping = false;
  const out: ReadItem[] = [];

  const take = (text: string, at: number): void => {
    // Only JSON's own white space is blank (String#trim would also drop a form feed or U+00A0).
    if (BLANK.test(text)) return;
    sawText = true;
    row++;
    out.push(lineItem(text, file, row, at));
  };

  /** One piece of decoded text: complete lines become items in `out`; the rest is carried. */
  const consume = (chunk: string): void => {
    let text = carry.length > 0 ? carry + chunk : chunk;
    carry = '';
    let start = 0;
    if (skipping) {
      const end = text.indexOf('\n');
      if (end === -1) return;
      skipping = false;
      line++;
      start = end + 1;
    }
    let end = text.indexOf('\n', start);
    while (end !== -1) {
      take(text.slice(start, end), line);
      line++;
      start = end + 1;
      end = text.indexOf('\n', start);
    }
    text = start === 0 ? text : text.slice(start);
    if (text.length > limit) {
      sawText = true;
      row++;
      out.push({
        type: 'issue',
        issue: readIssue(
          'field_too_large',
          file,
          positioned`line ${lineAt(line)} is longer than ${limit} characters; it is skipped`,
          { row, line },
        ),
      });
      skipping = true;
    } else {
      carry = text;
    }
  };

  try {
    for await (const chunk of texts) {
      consume(chunk);
      for (let i = 0; i < out.length; i++) yield out[i];
      out.length = 0;
    }
  } catch (err) {
    if (err instanceof InvalidBytesError) {
      const at = line + (carry + err.textBefore).split('\n').length - 1;
      // The complete lines before the bad byte are still records: out with them, then the error.
      consume(err.textBefore);
      for (let i = 0; i < out.length; i++) yield out[i];
      throw invalidBytesUsage(err, file, at, options.autoEncoding);
    }
    throw err;
  }
  if (!skipping && carry.length > 0) take(carry, line);
  if (!sawText) out.push(issueItem('empty_file', file, `${file} is empty (no JSON lines)`));
  for (const item of out) yield item;
}

const BLANK = /^[ \t\r\n]*$/;

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
