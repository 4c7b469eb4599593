import { fillHint, TARGETS_BY_PATH } from '../map/fill-hints.js';
import type { IssueGroup } from '../shared/issue-collector.js';

/**
 * The lines a run's summary ends with when a required field is missing on many rows: which
 * field, on how many rows, and the exact flag or mapping line that fills it. Pure: from the
 * report's issue groups (which count every issue, also those not listed).
 */
export interface MissingField {
  field: string;
  targets: string[];
  rows: number;
  line: string;
}

/** "Many": at least this share of the rows (and at least one row). */
const SHARE = 0.1;

export function missingFields(
  report: { rows: { total: number }; groups: IssueGroup[] },
  options: { country?: string } = {},
): MissingField[] {
  const total = report.rows.total;
  const out: MissingField[] = [];
  for (const g of report.groups) {
    if (g.severity !== 'error' || g.code !== 'required' || !g.field) continue;
    const targets = TARGETS_BY_PATH[g.field];
    if (!targets || g.count < Math.max(1, total * SHARE)) continue;
    const fixes = targets.map((t) => fillHint(t, options.country));
    out.push({
      field: g.field,
      targets,
      rows: g.count,
      line: `${g.field} is missing on ${g.count} of ${total} rows: ${fixes.join('; ')}`,
    });
  }
  return out.sort((a, b) => b.rows - a.rows);
}

/** The summary's lines (stderr), empty when nothing is missing on many rows. */
export function missingFieldLines(
  report: { rows: { total: number }; groups: IssueGroup[] },
  options: { country?: string } = {},
): string[] {
  const found = missingFields(report, options);
  if (found.length === 0) return [];
  return ['Required fields your feed lacks:', ...found.map((m) => `  ${m.line}`)];
}
