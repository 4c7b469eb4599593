/**
 * JSON nesting depth, measured on the raw text before parsing. V8 parses very deep JSON but
 * cannot serialize, clone or walk it again (stack overflow), so over-deep JSON is refused up
 * front: by the sandbox for a request body, by the readers for one record.
 * One pass, stopping as soon as the limit is passed; string contents (most of a product feed)
 * are skipped with the native `indexOf`.
 */

/** The deepest nesting of objects and arrays accepted in one request body. */
export const MAX_JSON_DEPTH = 64;

/**
 * The deepest nesting accepted in one record (a JSON element or NDJSON line): it is sent inside
 * `{"@graph": [...]}`, two levels, and the body must stay within MAX_JSON_DEPTH.
 */
export const MAX_RECORD_DEPTH = MAX_JSON_DEPTH - 2;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** Index of the quote that closes the string opened at `open`, or -1. */
function closingQuote(text: string, open: number): number {
  let at = open + 1;
  for (;;) {
    const q = text.indexOf('"', at);
    if (q === -1) return -1;
    let slashes = 0;
    for (let k = q - 1; text.charCodeAt(k) === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q;
    at = q + 1;
  }
}

/**
 * Index of the `{` or `[` that nests deeper than `limit` in `text`, or -1 when none does.
 * (An unterminated string ends the scan: JSON.parse refuses that text anyway.)
 */
export function tooDeepAt(text: string, limit = MAX_JSON_DEPTH): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (end === -1) return -1;
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return i;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return -1;
}

/**
 * true when objects/arrays nest deeper than `limit` anywhere in `body` (UTF-8 bytes). Read as
 * latin1, every byte is one character: the ASCII brackets and quotes stay where they are, and a
 * multi-byte character never looks like one of them.
 */
export function nestedDeeperThan(body: Buffer, limit = MAX_JSON_DEPTH): boolean {
  return tooDeepAt(body.toString('latin1'), limit) !== -1;
}
