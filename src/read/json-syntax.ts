/**
 * Where and why a text is not JSON (RFC 8259), for messages. JSON.parse stays the parser (native
 * and fast); this runs only after it refused a text, because V8's messages differ between Node
 * versions and some ("Unexpected token") give no position. Iterative, so any depth is fine.
 */

export interface JsonSyntaxError {
  /** Index in the text (UTF-16 code units) of the first character that cannot be there. */
  offset: number;
  reason: string;
}

const ARRAY = 0;
const OBJECT = 1;

// What comes next.
const VALUE = 0;
const ARRAY_FIRST = 1; // after `[`: a value or `]`
const OBJECT_FIRST = 2; // after `{`: a member name or `}`
const MEMBER_NAME = 3; // after `,` in an object
const COLON = 4;
const AFTER_VALUE = 5;

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}

/** A character as a message shows it. */
function shown(text: string, i: number): string {
  if (i >= text.length) return 'the end of the text';
  const c = text.codePointAt(i)!;
  if (c >= 0x21 && c <= 0x7e) return `'${String.fromCharCode(c)}'`;
  return `U+${c.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** The first syntax error in `text`, or undefined when it is one valid JSON text. */
export function jsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const stack: number[] = [];
  const n = text.length;
  let state = VALUE;
  let i = 0;
  const fail = (offset: number, reason: string): JsonSyntaxError => ({ offset, reason });
  for (;;) {
    while (i < n && isWs(text.charCodeAt(i))) i++;
    if (i >= n) {
      if (state === AFTER_VALUE && stack.length === 0) return undefined;
      const open =
        stack.length > 0
          ? stack[stack.length - 1] === ARRAY
            ? ' (an array is not closed)'
            : ' (an object is not closed)'
          : '';
      return fail(n, `the text ends early${open}`);
    }
    const c = text.charCodeAt(i);
    // Right after `[` or `{` the container may close at once.
    if (state === ARRAY_FIRST || state === OBJECT_FIRST) {
      if (c === (state === ARRAY_FIRST ? 0x5d : 0x7d)) {
        stack.pop();
        i++;
        state = AFTER_VALUE;
        continue;
      }
      state = state === ARRAY_FIRST ? VALUE : MEMBER_NAME;
    }
    switch (state) {
      case VALUE: {
        if (c === 0x5b) {
          stack.push(ARRAY);
          i++;
          state = ARRAY_FIRST;
          continue;
        }
        if (c === 0x7b) {
          stack.push(OBJECT);
          i++;
          state = OBJECT_FIRST;
          continue;
        }
        const end = scalarEnd(text, i);
        if (typeof end !== 'number') return end;
        i = end;
        state = AFTER_VALUE;
        continue;
      }
      case MEMBER_NAME: {
        if (c !== 0x22) {
          const trailing = c === 0x7d ? ' (a comma before "}" is not allowed)' : '';
          return fail(i, `expected a member name in double quotes, found ${shown(text, i)}${trailing}`);
        }
        const end = stringEnd(text, i);
        if (typeof end !== 'number') return end;
        i = end;
        state = COLON;
        continue;
      }
      case COLON:
        if (c !== 0x3a) return fail(i, `expected ':' after the member name, found ${shown(text, i)}`);
        i++;
        state = VALUE;
        continue;
      case AFTER_VALUE: {
        const top = stack.length === 0 ? -1 : stack[stack.length - 1];
        if (top === -1) return fail(i, `unexpected ${shown(text, i)} after the end of the JSON value`);
        const close = top === ARRAY ? 0x5d : 0x7d;
        if (c === 0x2c) {
          i++;
          state = top === ARRAY ? VALUE : MEMBER_NAME;
          continue;
        }
        if (c === close) {
          stack.pop();
          i++;
          continue;
        }
        const expected =
          top === ARRAY ? "',' or ']' after an array element" : "',' or '}' after an object member";
        return fail(i, `expected ${expected}, found ${shown(text, i)}`);
      }
    }
  }
}

/** Where the scalar (string, number, true, false, null) starting at `i` ends, or its error. */
function scalarEnd(text: string, i: number): number | JsonSyntaxError {
  const c = text.charCodeAt(i);
  if (c === 0x22) return stringEnd(text, i);
  if (c === 0x2d || isDigit(c)) return numberEnd(text, i);
  for (const word of ['true', 'false', 'null']) {
    if (c !== word.charCodeAt(0)) continue;
    for (let k = 1; k < word.length; k++) {
      if (text.charCodeAt(i + k) !== word.charCodeAt(k)) {
        return { offset: i + k, reason: `expected ${word}, found ${shown(text, i + k)}` };
      }
    }
    return i + word.length;
  }
  if (c === 0x2c || c === 0x5d || c === 0x7d) {
    return { offset: i, reason: `a value is missing before ${shown(text, i)}` };
  }
  return { offset: i, reason: `expected a value, found ${shown(text, i)}` };
}

function stringEnd(text: string, open: number): number | JsonSyntaxError {
  const n = text.length;
  let i = open + 1;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) {
      return {
        offset: i,
        reason: `control character ${shown(text, i)} inside a string (write it escaped, e.g. \\n)`,
      };
    }
    if (c === 0x5c) {
      const e = text.charCodeAt(i + 1);
      if (e === 0x75) {
        for (let k = 2; k < 6; k++) {
          if (!isHex(text.charCodeAt(i + k))) {
            return {
              offset: i + k,
              reason: `\\u must be followed by four hex digits, found ${shown(text, i + k)}`,
            };
          }
        }
        i += 6;
        continue;
      }
      // " \ / b f n r t
      if (
        e === 0x22 ||
        e === 0x5c ||
        e === 0x2f ||
        e === 0x62 ||
        e === 0x66 ||
        e === 0x6e ||
        e === 0x72 ||
        e === 0x74
      ) {
        i += 2;
        continue;
      }
      return { offset: i + 1, reason: `invalid escape: a backslash followed by ${shown(text, i + 1)}` };
    }
    i++;
  }
  return { offset: n, reason: 'the text ends inside a string (a closing quote is missing)' };
}

function numberEnd(text: string, start: number): number | JsonSyntaxError {
  let i = start;
  if (text.charCodeAt(i) === 0x2d) i++;
  const first = text.charCodeAt(i);
  if (!isDigit(first))
    return { offset: i, reason: `expected a digit in the number, found ${shown(text, i)}` };
  i++;
  if (first === 0x30 && isDigit(text.charCodeAt(i))) {
    return { offset: i, reason: 'a number cannot have a leading zero' };
  }
  while (isDigit(text.charCodeAt(i))) i++;
  if (text.charCodeAt(i) === 0x2e) {
    i++;
    if (!isDigit(text.charCodeAt(i))) {
      return { offset: i, reason: `expected a digit after the decimal point, found ${shown(text, i)}` };
    }
    while (isDigit(text.charCodeAt(i))) i++;
  }
  const e = text.charCodeAt(i);
  if (e === 0x65 || e === 0x45) {
    i++;
    const sign = text.charCodeAt(i);
    if (sign === 0x2b || sign === 0x2d) i++;
    if (!isDigit(text.charCodeAt(i))) {
      return { offset: i, reason: `expected a digit in the exponent, found ${shown(text, i)}` };
    }
    while (isDigit(text.charCodeAt(i))) i++;
  }
  return i;
}
