/**
 * Text for a person's terminal, one line, with nothing in it that a terminal interprets.
 *
 * Values from a feed or a server's answer are printed inside messages; raw, a value such as
 * `\x1b[2J\x1b]0;pwned\x07` would clear the screen and retitle the window. Every C0 control
 * (tab and line breaks included: a message is one line), DEL and C1 control is written as a
 * visible escape (`\x1b`, `\x7f`, `\u009b`), and so are the Unicode line separators and the
 * bidirectional controls, which reorder what is shown (U+202E turns `gpj.exe` around).
 * Only messages for people go through this; JSON output keeps the data as it is.
 */
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const hex = (code: number, width: number) => code.toString(16).padStart(width, '0');

function visible(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x80 ? `\\x${hex(code, 2)}` : `\\u${hex(code, 4)}`;
}

export function printable(text: string): string {
  return text.replace(UNPRINTABLE, visible);
}
