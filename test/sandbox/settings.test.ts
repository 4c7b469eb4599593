import { describe, expect, it } from 'vitest';
import { parseDuration, parseSize, resolveSandboxSettings } from '../../src/sandbox/settings.js';

const sources = (flags: Record<string, unknown>, env: Record<string, string> = {}, config = {}) => ({
  flags,
  env,
  config,
});

describe('sandbox settings', () => {
  it('parses sizes and durations', () => {
    expect(parseSize('10MiB', '--max-body')).toBe(10 * 1024 * 1024);
    expect(parseSize('512k', '--max-body')).toBe(512 * 1024);
    expect(parseSize('1000', '--max-body')).toBe(1000);
    expect(() => parseSize('lots', '--max-body')).toThrow(/--max-body must be a size/);
    expect(parseDuration('24h', 'x')).toBe(86_400_000);
    expect(parseDuration('90s', 'x')).toBe(90_000);
    expect(parseDuration('500', 'x')).toBe(500);
    expect(() => parseDuration('soon', '--idempotency-ttl')).toThrow(/--idempotency-ttl must be a duration/);
  });

  it('has the documented defaults and generates missing keys', () => {
    const s = resolveSandboxSettings(sources({}));
    expect(s.port).toBe(8080);
    expect(s.options).toMatchObject({
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
    expect(s.generated).toEqual({ apiKey: true, serviceKey: true });
  });

  it('takes flags over environment over config file', () => {
    const s = resolveSandboxSettings(
      sources(
        { port: '0', latency: '10-20', failRate: '0.25', seed: '7' },
        { GENSER_SANDBOX_PORT: '9000', GENSER_API_KEY: 'env-key-1' },
        { country: 'US', rateLimit: 5, port: 7000 },
      ),
    );
    expect(s.port).toBe(0);
    expect(s.options.apiKey).toBe('env-key-1');
    expect(s.generated.apiKey).toBe(false);
    expect(s.options.country).toBe('US');
    expect(s.options.faults).toMatchObject({ latencyMs: [10, 20], failRate: 0.25, seed: 7, rateLimit: 5 });
  });

  it('refuses bad values with usage errors naming the flag', () => {
    expect(() => resolveSandboxSettings(sources({ failStatus: '502' }))).toThrow(
      /--fail-status must be 500 or 503/,
    );
    expect(() => resolveSandboxSettings(sources({ port: '70000' }))).toThrow(/--port must be a whole number/);
    expect(() => resolveSandboxSettings(sources({ legacyContentsPath: 'contents' }))).toThrow(
      /must be a path/,
    );
    expect(() => resolveSandboxSettings(sources({ latency: 'slow' }))).toThrow(/--latency must be/);
  });
});
