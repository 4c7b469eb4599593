/**
 * JSON nesting depth, measured on the raw bytes before parsing. V8 parses very deep JSON but
 * cannot serialize it again (stack overflow), so over-deep bodies are refused up front.
 * One pass, stopping as soon as the limit is passed; string contents (most of a product feed)
 * are skipped with the native `indexOf`.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** Index of the quote that closes the string opened at `open`, or -1. */
function closingQuote(body: Buffer, open: number): number {
  let at = open + 1;
  for (;;) {
    const q = body.indexOf(QUOTE, at);
    if (q === -1) return -1;
    let slashes = 0;
    for (let k = q - 1; body[k] === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return q;
    at = q + 1;
  }
}

/** true when objects/arrays nest deeper than `limit` anywhere in `body`. */
export function nestedDeeperThan(body: Buffer, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === QUOTE) {
      const end = closingQuote(body, i);
      if (end === -1) return false; // unterminated: JSON.parse refuses it anyway
      i = end;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--;
  }
  return false;
}
