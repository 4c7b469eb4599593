import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfigFile, parseAs, pick } from '../../src/cli/config.js';
import { type CommandContext, exitCodeFor } from '../../src/cli/main.js';
import { resolveFeedOptions } from '../../src/cli/options.js';
import { createLogger, isFancy } from '../../src/cli/terminal.js';
import { ExitCode, ExitError, UsageError } from '../../src/shared/errors.js';
import { clearSecrets, redact, registerSecret } from '../../src/shared/secrets.js';

function capture(isTTY = false) {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean };
  stream.isTTY = isTTY;
  let text = '';
  stream.on('data', (c) => {
    text += String(c);
  });
  return { stream, text: () => text };
}

function ctx(): CommandContext & { err: () => string } {
  const out = capture();
  const err = capture();
  return { stdout: out.stream, stderr: err.stream, env: {}, exitCode: 0, err: err.text };
}

afterEach(() => clearSecrets());

describe('settings precedence: flag, env, config file, default', () => {
  const config = { format: 'legacy', language: 'ja', country: 'jp' };
  it('takes the flag over everything', () => {
    const s = { flags: { format: 'standard' }, env: { GENSER_FORMAT: 'legacy' }, config };
    expect(pick(s, 'format', 'GENSER_FORMAT', 'standard')).toBe('standard');
  });
  it('takes the environment over the config file, ignoring empty values', () => {
    expect(
      pick({ flags: {}, env: { GENSER_LANGUAGE: 'en' }, config }, 'language', 'GENSER_LANGUAGE', 'ko'),
    ).toBe('en');
    expect(
      pick({ flags: {}, env: { GENSER_LANGUAGE: '' }, config }, 'language', 'GENSER_LANGUAGE', 'ko'),
    ).toBe('ja');
  });
  it('falls back to the default', () => {
    expect(resolveFeedOptions({ flags: {}, env: {}, config: {} })).toMatchObject({
      format: 'standard',
      kind: 'products',
      encoding: 'auto',
      language: 'ko',
      strict: false,
      country: 'KR',
    });
  });
  it('resolves the config file values and normalises them', () => {
    const opts = resolveFeedOptions({ flags: { delimiter: 'tab' }, env: {}, config });
    expect(opts).toMatchObject({ format: 'legacy', language: 'ja', country: 'JP', delimiter: '\t' });
  });
  it('rejects a bad value naming where it came from', () => {
    expect(() => resolveFeedOptions({ flags: {}, env: { GENSER_FORMAT: 'xml' }, config: {} })).toThrow(
      /GENSER_FORMAT must be one of standard, legacy; got "xml"/,
    );
    expect(() => parseAs.int(1, 10)('11', '--concurrency')).toThrow(
      /--concurrency must be a whole number from 1 to 10/,
    );
  });
});

describe('loadConfigFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'genser-config-'));
  it('reads genser.config.json from the working directory, or nothing when absent', () => {
    expect(loadConfigFile(undefined, dir)).toEqual({});
    writeFileSync(join(dir, 'genser.config.json'), '{"batchSize": 100}');
    expect(loadConfigFile(undefined, dir)).toEqual({ batchSize: 100 });
  });
  it('fails with a usage error for a missing --config file or bad JSON', () => {
    expect(() => loadConfigFile('nope.json', dir)).toThrow(UsageError);
    writeFileSync(join(dir, 'bad.json'), '{"batchSize": ');
    expect(() => loadConfigFile('bad.json', dir)).toThrow(/is not valid JSON/);
  });
});

describe('terminal', () => {
  it('is plain off a TTY, under NO_COLOR, TERM=dumb, CI and --json', () => {
    const tty = { write: () => true, isTTY: true };
    expect(isFancy(tty, {})).toBe(true);
    expect(isFancy({ write: () => true, isTTY: false }, {})).toBe(false);
    expect(isFancy(tty, { NO_COLOR: '1' })).toBe(false);
    expect(isFancy(tty, { TERM: 'dumb' })).toBe(false);
    expect(isFancy(tty, { CI: 'true' })).toBe(false);
    expect(isFancy(tty, {}, { json: true })).toBe(false);
  });
  it('redacts registered secrets in every log line', () => {
    const err = capture();
    registerSecret('sk-sentinel-123456');
    createLogger({}, err.stream, {}).error('server said: bad key sk-sentinel-123456');
    expect(err.text()).toBe('error: server said: bad key ***\n');
    expect(redact('no secret here')).toBe('no secret here');
  });
});

describe('exitCodeFor: the one place errors become exit codes', () => {
  it('maps typed errors to their code with a one-line message and hint', () => {
    const c = ctx();
    expect(exitCodeFor(new UsageError('cannot read feed.csv', 'check the path'), c, false)).toBe(
      ExitCode.usage,
    );
    expect(c.err()).toBe('genser: cannot read feed.csv\nhint: check the path\n');
  });
  it('reports a bug as exit 70 without a stack trace unless --debug', () => {
    const c = ctx();
    expect(exitCodeFor(new TypeError('x is undefined'), c, false)).toBe(ExitCode.internal);
    expect(c.err()).toContain('genser: internal error: x is undefined');
    expect(c.err()).not.toMatch(/\n\s+at /);
    const d = ctx();
    exitCodeFor(new TypeError('x is undefined'), d, true);
    expect(d.err()).toMatch(/\n\s+at /);
  });
  it('never prints a registered secret, even inside an error message', () => {
    registerSecret('sk-sentinel-abcdef');
    const c = ctx();
    exitCodeFor(new ExitError(ExitCode.auth, 'rejected key sk-sentinel-abcdef'), c, true);
    expect(c.err()).not.toContain('sk-sentinel-abcdef');
  });
});
