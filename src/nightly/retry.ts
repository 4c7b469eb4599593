import type { FeedRow } from '../feed/index.js';
import type { RetryRow } from '../upload/state/store.js';

/** `--retry-failed`: the saved rows of the last run, as feed rows with their original file, row and line. */
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
