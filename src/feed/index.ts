/**
 * The feed's one public entry: everything outside src/feed imports from here, so the inside
 * can change without touching its callers.
 */

export type { FeedRow } from './feed-row.js';
export { KEY_TEXT_LENGTH, type KnownColumns, KnownSources, KnownSourcesBuilder } from './known-sources.js';
export {
  emptyStats,
  type FeedStats,
  isClean,
  isFileLevel,
  type ReaderOptions,
  tally,
} from './pipeline.js';
export { type FeedRowsOptions, feedRows, payloadJson, payloadPrice, workersFor } from './run.js';
