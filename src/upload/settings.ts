import type { FeedOptions } from '../shared/types.js';
import type { UploadSettings } from './types.js';

/**
 * The upload engine's settings from the resolved options (the CLI's option table owns the flags,
 * environment variables and defaults; docs/upload.md explains each).
 */
export const UPLOAD_DEFAULTS = {
  retryAfterCapMs: 120_000,
  maxErrors: 20,
  graceMs: 5_000,
} as const;

export interface UploadInputs {
  batchSize: number;
  maxBatchBytes: number;
  concurrency: number;
  retries: number;
  retryBase: number;
  retryCap: number;
  type: 'create_product' | 'update_product';
  agent: string;
  path?: string;
  dryRun?: boolean;
  maxErrors?: number;
}

export function defaultPath(feed: Pick<FeedOptions, 'format' | 'kind'>): string {
  return feed.format === 'legacy' ? `/searches/${feed.kind}` : '/collectors/products';
}

export function uploadSettingsFrom(
  s: UploadInputs,
  feed: Pick<FeedOptions, 'format' | 'kind'>,
): UploadSettings {
  return {
    format: feed.format,
    path: s.path ?? defaultPath(feed),
    batchSize: s.batchSize,
    maxBatchBytes: s.maxBatchBytes,
    concurrency: s.concurrency,
    retries: s.retries,
    backoff: {
      baseMs: s.retryBase,
      capMs: s.retryCap,
      retryAfterCapMs: Math.max(UPLOAD_DEFAULTS.retryAfterCapMs, s.retryCap),
    },
    type: s.type,
    agentName: s.agent,
    dryRun: s.dryRun === true,
    maxErrors: s.maxErrors ?? UPLOAD_DEFAULTS.maxErrors,
    graceMs: UPLOAD_DEFAULTS.graceMs,
  };
}
