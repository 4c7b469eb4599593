/**
 * Mixed line ends in CSV text. Papaparse splits on one kind of line break; a file that mixes
 * CRLF, LF and CR (pasted together, or edited on another system) would have rows merged. Line
 * breaks inside quoted values are data (Excel writes LF inside CRLF files) and do not count.
 */
import type { Newline } from './sniff.js';

const CR = 13;
const LF = 10;

/** Occurrences of `char` in text[0, end). */
function count(text: string, char: string, end: number): number {
  let n = 0;
  for (let at = text.indexOf(char); at !== -1 && at < end; at = text.indexOf(char, at + 1)) n++;
  return n;
}

/** Whether every line break in text[0, end) is CRLF: each LF after a CR, and as many CRs as LFs. */
function onlyCrlf(text: string, end: number): boolean {
  let lf = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < end; at = text.indexOf('\n', at + 1)) {
    if (text.charCodeAt(at - 1) !== CR) return false;
    lf++;
  }
  return count(text, '\r', end) === lf;
}

/**
 * Index of the first line break outside quoted values that is not `newline`, or -1. Unless
 * `final`, a CR at the very end may be the first half of a CRLF and is not judged yet.
 * Only text holding another kind of break anywhere pays for the quote-aware scan.
 */
export function foreignBreakAt(text: string, newline: Newline, final: boolean): number {
  const end = !final && text.charCodeAt(text.length - 1) === CR ? text.length - 1 : text.length;
  if (newline === '\n') {
    const cr = text.indexOf('\r');
    if (cr === -1 || cr >= end) return -1;
  } else if (newline === '\r') {
    if (text.indexOf('\n') === -1) return -1;
  } else if (onlyCrlf(text, end)) return -1;
  // Each foreign break in turn, judged by the quoted values before it: a doubled quote inside
  // one closes and reopens it at once. (Looking for the next break from each unquoted stretch
  // instead read on to it again from every stretch: ~10 times the text of a file whose quoted
  // values hold breaks.)
  let at = foreignIn(text, 0, end, newline);
  let i = 0;
  while (at !== -1) {
    const open = text.indexOf('"', i);
    if (open === -1 || open > at) return at;
    const close = text.indexOf('"', open + 1);
    if (close === -1 || close >= end) return -1;
    i = close + 1;
    if (at < i) at = foreignIn(text, i, end, newline);
  }
  return -1;
}

/** The first line break in text[from, to) that is not `newline` (a lone CR or LF), or -1. */
function foreignIn(text: string, from: number, to: number, newline: Newline): number {
  if (newline === '\n' || newline === '\r') {
    const at = text.indexOf(newline === '\n' ? '\r' : '\n', from);
    return at !== -1 && at < to ? at : -1;
  }
  let found = -1;
  for (let at = text.indexOf('\n', from); at !== -1 && at < to; at = text.indexOf('\n', at + 1)) {
    if (text.charCodeAt(at - 1) !== CR) {
      found = at;
      break;
    }
  }
  const limit = found === -1 ? to : found;
  for (let at = text.indexOf('\r', from); at !== -1 && at < limit; at = text.indexOf('\r', at + 1)) {
    if (text.charCodeAt(at + 1) !== LF) return at;
  }
  return found;
}

/**
 * Every CRLF and CR as LF. Unless `final`, a CR at the very end is kept as it is: the LF that
 * may follow comes with the next text.
 */
export function normaliseBreaks(text: string, final: boolean): string {
  if (text.indexOf('\r') === -1) return text;
  if (!final && text.charCodeAt(text.length - 1) === CR) {
    return `${text.slice(0, -1).replace(/\r\n?/g, '\n')}\r`;
  }
  return text.replace(/\r\n?/g, '\n');
}

/** CRLF, LF or CR: the line break at `at`. */
export function lineEndName(text: string, at: number): string {
  if (text.charCodeAt(at) === LF) return 'LF';
  return text.charCodeAt(at + 1) === LF ? 'CRLF' : 'CR';
}
