/**
 * The feed's one public entry: everything outside src/feed imports from here, so the paths
 * inside (threads, pool, inline) can change without touching their callers.
 */
export { KEY_TEXT_LENGTH, type KnownColumns, KnownSources } from './known-sources.js';
export {
  emptyStats,
  type FeedStats,
  isClean,
  isFileLevel,
  type ReaderOptions,
  tally,
} from './pipeline.js';
export { type FeedRow, type FeedRowsOptions, feedRows, payloadJson } from './threads.js';
