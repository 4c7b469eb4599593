import type { Issue, Severity } from './types.js';

/**
 * Collects issues in bounded memory: every issue is counted into its group (severity, code,
 * field), but only the first `maxIssues` are kept in detail and each group keeps only its
 * first few rows. A million bad rows cost a few groups, not a million objects. The issues kept
 * are errors first, then warnings (each in the order they came): a feed whose first rows carry
 * only warnings still shows the error that makes it fail.
 */
export interface IssueGroup {
  severity: Severity;
  code: string;
  field?: string;
  count: number;
  /** `file:row` (or just the row when one file) of the first few occurrences. */
  rows: { file: string; row?: number; line?: number }[];
  /** The first occurrence's message, as an example. */
  example: string;
}

export const GROUP_ROWS = 5;

/** `<message>; <hint>`: how people read an issue, and the JSON reports' `message` (docs/feeds.md). */
export function messageWithHint(issue: Pick<Issue, 'message' | 'hint'>): string {
  // A warning kept in a state file written before the hint was apart already ends with it.
  if (!issue.hint || issue.message.endsWith(`; ${issue.hint}`)) return issue.message;
  return `${issue.message}; ${issue.hint}`;
}
const INDICES = /\[\d+\]/g;

export class IssueCollector {
  private readonly errors: Issue[] = [];
  private readonly warnings: Issue[] = [];
  private readonly groupMap = new Map<string, IssueGroup>();
  total = 0;

  constructor(readonly maxIssues: number) {}

  /** The issues kept: errors first, then warnings, at most `maxIssues`. */
  get issues(): Issue[] {
    const room = Math.max(0, this.maxIssues - this.errors.length);
    return [...this.errors, ...this.warnings.slice(0, room)];
  }

  add(issue: Issue): void {
    this.total++;
    // Each list alone may fill the kept issues; warnings give way to errors at the end.
    const kept = issue.severity === 'error' ? this.errors : this.warnings;
    if (kept.length < this.maxIssues) kept.push(issue);
    // `offers.image[3].contentUrl` and `offers.image[0].contentUrl` are the same problem.
    const field = issue.field?.includes('[') ? issue.field.replace(INDICES, '') : issue.field;
    const key = `${issue.severity}\u0000${issue.code}\u0000${field ?? ''}`;
    let group = this.groupMap.get(key);
    if (!group) {
      group = {
        severity: issue.severity,
        code: issue.code,
        count: 0,
        rows: [],
        example: messageWithHint(issue),
      };
      if (field) group.field = field;
      this.groupMap.set(key, group);
    }
    group.count++;
    if (group.rows.length < GROUP_ROWS)
      group.rows.push({ file: issue.file, row: issue.row, line: issue.line });
  }

  get truncated(): boolean {
    return this.total > Math.min(this.maxIssues, this.errors.length + this.warnings.length);
  }

  /** Errors first, then by count. */
  groups(): IssueGroup[] {
    return [...this.groupMap.values()].sort((a, b) =>
      a.severity === b.severity ? b.count - a.count : a.severity === 'error' ? -1 : 1,
    );
  }
}
