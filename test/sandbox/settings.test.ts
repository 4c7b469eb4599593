import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { byteSize, duration } from '../../src/cli/parsers.js';
import { resolveSettings } from '../../src/cli/settings.js';
import { sandboxOptionsFrom } from '../../src/sandbox/settings.js';

function resolve(flags: Record<string, unknown>, env: NodeJS.ProcessEnv = {}, config = {}) {
  const cwd = mkdtempSync(join(tmpdir(), 'genser-sandbox-settings-'));
  writeFileSync(join(cwd, 'genser.config.json'), JSON.stringify(config));
  const s = resolveSettings('sandbox', flags, env, cwd).settings;
  return { s, options: sandboxOptionsFrom(s) };
}

describe('sandbox settings', () => {
  it('parses sizes and durations', () => {
    const size = byteSize();
    expect(size('10MiB', '--max-body')).toBe(10 * 1024 * 1024);
    expect(size('512k', '--max-body')).toBe(512 * 1024);
    expect(size('1000', '--max-body')).toBe(1000);
    expect(() => size('lots', '--max-body')).toThrow(/--max-body must be a size/);
    expect(duration('24h', 'x')).toBe(86_400_000);
    expect(duration('90s', 'x')).toBe(90_000);
    expect(duration('500', 'x')).toBe(500);
    expect(() => duration('soon', '--idempotency-ttl')).toThrow(/--idempotency-ttl must be a duration/);
  });

  it('has the documented defaults and leaves missing keys to be generated', () => {
    const { s, options } = resolve({});
    expect(s.port).toBe(8080);
    expect(options).toMatchObject({
      host: '127.0.0.1',
      db: ':memory:',
      country: 'KR',
      maxBodyBytes: 10 * 1024 * 1024,
      idempotencyTtlMs: 86_400_000,
      legacyPaths: {
        products: '/searches/products',
        contents: '/searches/contents',
        filters: '/searches/filters',
      },
      faults: { failStatus: 503 },
    });
    expect(options.apiKey).toBeUndefined();
    expect(options.serviceKey).toBeUndefined();
  });

  it('takes flags over environment over config file', () => {
    const { s, options } = resolve(
      { port: '0', latency: '10-20', failRate: '0.25', seed: '7' },
      { GENSER_SANDBOX_PORT: '9000', GENSER_API_KEY: 'env-key-1' },
      { country: 'US', rateLimit: 5, port: 7000 },
    );
    expect(s.port).toBe(0);
    expect(options.apiKey).toBe('env-key-1');
    expect(options.country).toBe('US');
    expect(options.faults).toMatchObject({ latencyMs: [10, 20], failRate: 0.25, seed: 7, rateLimit: 5 });
  });

  it('refuses bad values with usage errors naming the flag', () => {
    expect(() => resolve({ failStatus: '502' })).toThrow(/--fail-status must be one of 500, 503/);
    expect(() => resolve({ port: '70000' })).toThrow(/--port must be a whole number/);
    expect(() => resolve({ legacyContentsPath: 'con tents' })).toThrow(/must be a path/);
    expect(() => resolve({ latency: 'slow' })).toThrow(/--latency must be/);
    expect(() => resolve({ latency: '400-100' })).toThrow(/--latency must be/);
  });
});
