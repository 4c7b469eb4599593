import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { byteSize } from '../../src/cli/parsers.js';
import { resolveSettings } from '../../src/cli/settings.js';
import { exceedsBudget, parseInvalidBudget } from '../../src/upload/budget.js';
import { uploadSettingsFrom } from '../../src/upload/settings.js';

function resolve(flags: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}, config = {}) {
  const cwd = mkdtempSync(join(tmpdir(), 'genser-upload-settings-'));
  writeFileSync(join(cwd, 'genser.config.json'), JSON.stringify(config));
  const s = resolveSettings('upload', flags, env, cwd).settings;
  return { s, settings: uploadSettingsFrom(s, s) };
}

describe('upload settings', () => {
  it('uses the documented defaults and the standard path', () => {
    const { s, settings } = resolve({ dryRun: true });
    expect(settings).toMatchObject({
      batchSize: 500,
      maxBatchBytes: 5 * 1024 * 1024,
      concurrency: 4,
      retries: 5,
      type: 'create_product',
      agentName: 'genser',
      path: '/collectors/products',
      backoff: { baseMs: 500, capMs: 30_000 },
    });
    expect(s.timeout).toBe(60);
  });
  it('flags beat env beat config; legacy paths by kind', () => {
    const { settings } = resolve(
      { batchSize: '50', format: 'legacy', kind: 'filters', dryRun: true },
      { GENSER_BATCH_SIZE: '60', GENSER_CONCURRENCY: '8' },
      { concurrency: 2, retries: 1 },
    );
    expect(settings).toMatchObject({ batchSize: 50, concurrency: 8, retries: 1, path: '/searches/filters' });
  });
  it('refuses a URL that is not http(s), naming where it came from', () => {
    expect(() => resolve({ apiUrl: 'ftp://x' })).toThrow(/--api-url must be an http or https URL/);
    expect(() => resolve({}, { GENSER_API_URL: 'nope' })).toThrow(/GENSER_API_URL is not a URL/);
  });
  it('parses sizes, budgets and rejects nonsense with the source named', () => {
    const size = byteSize(1024);
    expect(size('5MB', '--max-batch-bytes')).toBe(5 * 1024 * 1024);
    expect(size('512k', 'x')).toBe(512 * 1024);
    expect(() => size('lots', '--max-batch-bytes')).toThrow(/--max-batch-bytes must be a size/);
    expect(parseInvalidBudget('2%', 'x')).toEqual({ kind: 'percent', max: 2 });
    expect(parseInvalidBudget('10', 'x')).toEqual({ kind: 'count', max: 10 });
    expect(() => parseInvalidBudget('ten', '--max-invalid')).toThrow(/--max-invalid/);
    expect(exceedsBudget({ kind: 'count', max: 2 }, 3, 100)).toBe(true);
    expect(exceedsBudget({ kind: 'count', max: 2 }, 2, 100)).toBe(false);
    expect(exceedsBudget({ kind: 'percent', max: 2 }, 3, 100)).toBe(true);
    expect(exceedsBudget({ kind: 'percent', max: 2 }, 2, 100)).toBe(false);
    expect(() => resolve({ dryRun: true, concurrency: '0' })).toThrow(/--concurrency must be a whole number/);
  });
});
