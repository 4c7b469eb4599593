import type { FeedRow } from '../../feed/index.js';
import type { RetryRow } from './store.js';

/**
 * `--retry-failed` (docs/nightly.md, "Retrying failed rows"): every row owed by earlier runs
 * (not accepted, and not superseded since), whatever ran in between, as feed rows with their
 * original file, row and line.
 */
export async function* retryRows(rows: readonly RetryRow[]): AsyncGenerator<FeedRow> {
  for (const r of rows)
    yield {
      file: r.file,
      row: r.row,
      line: r.line,
      ...(r.sku !== null ? { sku: r.sku } : {}),
      issues: [],
      valid: true,
      json: r.payload,
    };
}

/** What a retry run says it sends, and its label in the run history. */
export function retryLines(rows: readonly RetryRow[]): { info: string; label: string } {
  const n = rows.length;
  const count = `${n.toLocaleString('en-US')} ${n === 1 ? 'row' : 'rows'}`;
  if (n === 0)
    return {
      info: 'retry: 0 rows owed: every row of earlier runs was accepted, or superseded by a newer payload',
      label: '--retry-failed (nothing owed)',
    };
  const runs = [...new Set(rows.map((r) => r.runId))];
  const of = `${runs.length === 1 ? 'run' : 'runs'} ${runs.slice(0, 5).join(', ')}${runs.length > 5 ? ', ...' : ''}`;
  return {
    info: `retry: ${count} owed, not accepted by ${of}; sending them again`,
    label: `--retry-failed (${count} owed by ${of})`,
  };
}
