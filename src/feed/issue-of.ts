import type { MapProblem } from '../map/map-row.js';
import type { FeedItem, Issue } from '../shared/types.js';

/** A file-level issue as the item it is reported as (`row: 0`). */
export function fileItem(issue: Issue): FeedItem {
  return {
    file: issue.file,
    row: 0,
    line: issue.line ?? 0,
    issues: [issue],
    valid: issue.severity !== 'error',
  };
}

/** A row's problem as the issue it is reported as. */
export function issueOf(
  p: MapProblem,
  at: { file: string; row: number; line: number },
  sku: string | undefined,
): Issue {
  const issue: Issue = {
    severity: p.severity ?? 'error',
    code: p.code,
    file: at.file,
    row: at.row,
    line: at.line,
  } as Issue;
  if (sku !== undefined) issue.sku = sku;
  if (p.column !== undefined) issue.column = p.column;
  if (p.field) issue.field = p.field;
  if (p.value !== undefined) issue.value = p.value;
  issue.message = p.message;
  if (p.hint) issue.hint = p.hint;
  return issue;
}
