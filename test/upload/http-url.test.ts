import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { type Io, main } from '../../src/cli/main.js';
import { exampleFor } from '../../src/events/examples.js';
import { UndiciSender } from '../../src/http/sender.js';
import { ExitCode, UsageError } from '../../src/shared/errors.js';
import { checkHttpUrl } from '../../src/shared/http-url.js';

// One URL check for upload and events (issue 19.6).

function usage(fn: () => unknown): UsageError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return err as UsageError;
  }
  throw new Error('no usage error');
}

describe('checkHttpUrl', () => {
  it('accepts absolute http and https URLs, with a port and a base path', () => {
    expect(checkHttpUrl(' https://api.example.com ', '--api-url')).toBe('https://api.example.com');
    expect(checkHttpUrl('http://127.0.0.1:8080/v1/', 'GENSER_BASE_URL')).toBe('http://127.0.0.1:8080/v1/');
  });

  it('refuses other schemes, relative and malformed URLs, naming where the value came from', () => {
    const ftp = usage(() => checkHttpUrl('ftp://127.0.0.1/', 'GENSER_BASE_URL'));
    expect(ftp.message).toBe('GENSER_BASE_URL must be an http or https URL; got "ftp://127.0.0.1/" (ftp)');
    expect(ftp.exitCode).toBe(ExitCode.usage);
    expect(usage(() => checkHttpUrl('api.example.com', 'apiUrl in genser.config.json')).message).toBe(
      'apiUrl in genser.config.json is not a URL: "api.example.com"',
    );
    expect(usage(() => checkHttpUrl('file:///etc/passwd', '--api-url')).message).toMatch(
      /^--api-url must be/,
    );
    expect(usage(() => checkHttpUrl('https://h.example/?k=1', '--api-url')).message).toMatch(
      /query or fragment/,
    );
    expect(usage(() => checkHttpUrl('http://h\x1b[2J.example', '--api-url')).message).not.toContain('\x1b');
  });

  it('guards the HTTP sender: an ftp URL is a usage error, not a crash in the HTTP client', () => {
    const e = usage(
      () =>
        new UndiciSender({
          apiUrl: 'ftp://127.0.0.1/',
          urlFrom: 'GENSER_BASE_URL',
          connections: 1,
          timeoutMs: 1000,
          userAgent: 't',
          keyHeader: 'serviceKey',
          key: 'k-123456',
        }),
    );
    expect(e.message).toMatch(/^GENSER_BASE_URL must be an http or https URL/);
  });

  it('events send with GENSER_BASE_URL=ftp://... exits 2 (was 70, "Invalid URL protocol")', async () => {
    const stdout = new PassThrough();
    const stderr = new PassThrough();
    let err = '';
    stderr.on('data', (c) => {
      err += String(c);
    });
    const ctx: Io = {
      stdout,
      stderr,
      env: { NO_COLOR: '1', GENSER_BASE_URL: 'ftp://127.0.0.1/', GENSER_SERVICE_KEY: 'svc-key-0123456789' },
      exitCode: 0,
    };
    const file = join(mkdtempSync(join(tmpdir(), 'genser-url-')), 'events.ndjson');
    writeFileSync(file, `${JSON.stringify(exampleFor('view_product'))}\n`);
    const code = await main(['node', 'genser', 'events', 'send', file], ctx);
    expect(err).not.toContain('internal error');
    expect(code).toBe(ExitCode.usage);
    expect(err).toMatch(/must be an http or https URL/);
  });
});
