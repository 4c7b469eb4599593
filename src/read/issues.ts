import type { Issue, ReadItem } from '../shared/types.js';

/** The stable codes of the read issues (docs/reading.md lists them with their meaning). */
export type ReadIssueCode =
  | 'unclosed_quote'
  | 'malformed_quote'
  | 'ragged_row'
  | 'duplicate_header'
  | 'empty_file'
  | 'no_rows'
  | 'binary'
  | 'field_too_large'
  | 'invalid_json'
  | 'not_an_object'
  | 'not_a_feed'
  | 'too_deep'
  | 'mixed_line_ends'
  /** A row (or a CSV header) holding a NUL character: src/read/nul.ts. */
  | 'nul_byte'
  /** A warning: a standard envelope without a member contract 2.7 recommends. */
  | 'envelope_recommended'
  /** A standard envelope member the service refuses (no agent, a wrong specversion...). */
  | 'envelope';

export interface IssueAt {
  row?: number;
  line?: number;
  column?: string;
  value?: string;
}

/**
 * A message whose row and line numbers stay numbers: a byte range read on a feed worker counts
 * rows and lines from its own start, and the feed renders the text again once it knows how many
 * came before (src/feed/settle.ts). Made with the `positioned` tag and `rowAt`/`lineAt`.
 */
export type MessagePart = string | { row: number } | { line: number };

/** A row number inside a positioned message. */
export const rowAt = (row: number): MessagePart => ({ row });
/** A line number inside a positioned message. */
export const lineAt = (line: number): MessagePart => ({ line });

/** `positioned\`row ${rowAt(r)} (line ${lineAt(l)}): ...\``: the message's parts. */
export function positioned(
  strings: TemplateStringsArray,
  ...values: (MessagePart | MessagePart[] | number)[]
): MessagePart[] {
  const parts: MessagePart[] = [strings[0]];
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (Array.isArray(v)) parts.push(...v);
    else parts.push(typeof v === 'number' ? String(v) : v);
    parts.push(strings[i + 1]);
  }
  return parts;
}

/** The text of a positioned message, its rows and lines moved on by `rows` and `lines`. */
export function renderMessage(parts: readonly MessagePart[], rows = 0, lines = 0): string {
  let text = '';
  for (const p of parts) {
    if (typeof p === 'string') text += p;
    else if ('row' in p) text += p.row + rows;
    else text += p.line + lines;
  }
  return text;
}

/** The parts of read issues whose messages hold positions (kept apart: reports show the text alone). */
const partsOf = new WeakMap<Issue, readonly MessagePart[]>();

export function messageParts(issue: Issue): readonly MessagePart[] | undefined {
  return partsOf.get(issue);
}

/** Read issues are errors (the row or file cannot be used as it stands), unless a caller lowers one. */
export function readIssue(
  code: ReadIssueCode,
  file: string,
  text: string | MessagePart[],
  at: IssueAt = {},
): Issue {
  const message = typeof text === 'string' ? text : renderMessage(text);
  const issue: Issue = { severity: 'error', code, file, message };
  if (typeof text !== 'string') partsOf.set(issue, text);
  if (at.row !== undefined) issue.row = at.row;
  if (at.line !== undefined) issue.line = at.line;
  if (at.column !== undefined) issue.column = at.column;
  if (at.value !== undefined) issue.value = at.value;
  return issue;
}

/** The same, as a ReadItem. */
export function issueItem(
  code: ReadIssueCode,
  file: string,
  text: string | MessagePart[],
  at: IssueAt = {},
): ReadItem {
  return { type: 'issue', issue: readIssue(code, file, text, at) };
}
