import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Sources } from '../../src/cli/config.js';
import { resolveFeedOptions } from '../../src/cli/options.js';
import { UsageError } from '../../src/shared/errors.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import {
  exceedsBudget,
  parseByteSize,
  parseInvalidBudget,
  resolveUpload,
} from '../../src/upload/settings.js';

const _dir = mkdtempSync(join(tmpdir(), 'genser-upload-settings-'));
const src = (flags: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}, config = {}): Sources => ({
  flags,
  env,
  config,
});
const resolve = (s: Sources) => resolveUpload(s, resolveFeedOptions(s));

afterEach(() => clearSecrets());

describe('upload settings', () => {
  it('uses the documented defaults and the standard path', () => {
    const r = resolve(src({ dryRun: true }));
    expect(r.settings).toMatchObject({
      batchSize: 500,
      maxBatchBytes: 5 * 1024 * 1024,
      concurrency: 4,
      retries: 5,
      type: 'create_product',
      agentName: 'genser',
      path: '/collectors/products',
      backoff: { baseMs: 500, capMs: 30_000 },
    });
    expect(r.timeoutMs).toBe(60_000);
  });
  it('flags beat env beat config; legacy paths by kind', () => {
    const r = resolve(
      src(
        { batchSize: '50', format: 'legacy', kind: 'filters', dryRun: true },
        { GENSER_BATCH_SIZE: '60', GENSER_CONCURRENCY: '8' },
        { concurrency: 2, retries: 1 },
      ),
    );
    expect(r.settings).toMatchObject({
      batchSize: 50,
      concurrency: 8,
      retries: 1,
      path: '/searches/filters',
    });
  });
  it('refuses a missing url or key with what to set, unless --sandbox or --dry-run', () => {
    expect(() => resolve(src({}, { GENSER_API_KEY: 'k-123456' }))).toThrow(/--api-url or GENSER_API_URL/);
    expect(() => resolve(src({ apiUrl: 'http://127.0.0.1:1' }))).toThrow(/GENSER_API_KEY, or --api-key-file/);
    expect(() => resolve(src({ sandbox: true }))).not.toThrow();
    expect(() => resolve(src({ apiUrl: 'ftp://x' }, { GENSER_API_KEY: 'k-123456' }))).toThrow(UsageError);
  });
  it('parses sizes, budgets and rejects nonsense with the source named', () => {
    expect(parseByteSize('5MB', '--max-batch-bytes')).toBe(5 * 1024 * 1024);
    expect(parseByteSize('512k', 'x')).toBe(512 * 1024);
    expect(() => parseByteSize('lots', '--max-batch-bytes')).toThrow(/--max-batch-bytes must be a size/);
    expect(parseInvalidBudget('2%', 'x')).toEqual({ kind: 'percent', max: 2 });
    expect(parseInvalidBudget('10', 'x')).toEqual({ kind: 'count', max: 10 });
    expect(() => parseInvalidBudget('ten', '--max-invalid')).toThrow(/--max-invalid/);
    expect(exceedsBudget({ kind: 'count', max: 2 }, 3, 100)).toBe(true);
    expect(exceedsBudget({ kind: 'count', max: 2 }, 2, 100)).toBe(false);
    expect(exceedsBudget({ kind: 'percent', max: 2 }, 3, 100)).toBe(true);
    expect(exceedsBudget({ kind: 'percent', max: 2 }, 2, 100)).toBe(false);
    expect(() => resolve(src({ dryRun: true, concurrency: '0' }))).toThrow(
      /--concurrency must be a whole number/,
    );
  });
});
