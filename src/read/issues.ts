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

/** Read issues are errors (the row or file cannot be used as it stands), unless a caller lowers one. */
export function readIssue(code: ReadIssueCode, file: string, message: string, at: IssueAt = {}): Issue {
  const issue: Issue = { severity: 'error', code, file, message };
  if (at.row !== undefined) issue.row = at.row;
  if (at.line !== undefined) issue.line = at.line;
  if (at.column !== undefined) issue.column = at.column;
  if (at.value !== undefined) issue.value = at.value;
  return issue;
}

/** The same, as a ReadItem. */
export function issueItem(code: ReadIssueCode, file: string, message: string, at: IssueAt = {}): ReadItem {
  return { type: 'issue', issue: readIssue(code, file, message, at) };
}
