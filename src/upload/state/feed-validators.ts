import { createHash } from 'node:crypto';
import type { FeedValidators } from './store.js';

/**
 * A feed URL's validators as both backends keep them (docs/reading.md, "Feeds from a URL"): by
 * the URL's SHA-256, so a token in its query is never stored.
 */
export function feedUrlHash(url: string): string {
  return createHash('sha256').update(url).digest('base64url');
}

/** A stored row as the validators a conditional GET sends. */
export function feedValidatorsOf(row: {
  etag: string | null;
  last_modified: string | null;
  run_id: string;
}): FeedValidators {
  return {
    runId: row.run_id,
    ...(row.etag !== null ? { etag: row.etag } : {}),
    ...(row.last_modified !== null ? { lastModified: row.last_modified } : {}),
  };
}
