import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { CONFIG_FILE_NAME, loadConfigFile } from '../../src/cli/config-file.js';
import { exitCodeFor } from '../../src/cli/main.js';
import * as p from '../../src/cli/parsers.js';
import { CONFIG_KEYS, resolveSettings } from '../../src/cli/settings.js';
import { createLogger, isFancy } from '../../src/cli/terminal.js';
import { feedOptionsFrom } from '../../src/commands/feed-settings.js';
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

function ctx() {
  const err = capture();
  return { stderr: err.stream, err: err.text };
}

/** A working directory holding `genser.config.json` with these settings. */
function configDir(values: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'genser-config-'));
  writeFileSync(join(dir, CONFIG_FILE_NAME), JSON.stringify(values));
  return dir;
}

const feedOptions = (flags: Record<string, unknown>, env: NodeJS.ProcessEnv, cwd: string) => {
  const r = resolveSettings('validate', flags, env, cwd);
  const explicit = new Set(
    Object.keys(r.origins).filter((k) => r.origins[k as 'format']?.kind !== 'default'),
  );
  return feedOptionsFrom(r.settings, { explicit });
};

afterEach(() => clearSecrets());

describe('settings precedence: flag, env, config file, default', () => {
  const dir = configDir({ format: 'legacy', language: 'ja', country: 'jp' });
  it('takes the flag over everything', () => {
    const r = resolveSettings('validate', { format: 'standard' }, { GENSER_FORMAT: 'legacy' }, dir);
    expect(r.settings.format).toBe('standard');
    expect(r.origins.format).toMatchObject({ kind: 'flag', label: '--format' });
  });
  it('takes the environment over the config file, ignoring empty values', () => {
    expect(resolveSettings('validate', {}, { GENSER_LANGUAGE: 'en' }, dir).settings.language).toBe('en');
    const r = resolveSettings('validate', {}, { GENSER_LANGUAGE: '' }, dir);
    expect(r.settings.language).toBe('ja');
    expect(r.origins.language?.kind).toBe('config');
  });
  it('falls back to the default', () => {
    const empty = mkdtempSync(join(tmpdir(), 'genser-config-'));
    expect(feedOptions({}, {}, empty)).toMatchObject({
      format: 'standard',
      kind: 'products',
      encoding: 'auto',
      language: 'ko',
      strict: false,
      country: 'KR',
    });
  });
  it('resolves the config file values and normalises them', () => {
    expect(feedOptions({ delimiter: 'tab' }, {}, dir)).toMatchObject({
      format: 'legacy',
      language: 'ja',
      country: 'JP',
      delimiter: '\t',
    });
  });
  it('rejects a bad value naming where it came from', () => {
    expect(() => resolveSettings('validate', {}, { GENSER_FORMAT: 'xml' }, dir)).toThrow(
      /GENSER_FORMAT must be one of standard, legacy; got "xml"/,
    );
    expect(() => p.int(1, 10)('11', '--concurrency')).toThrow(
      /--concurrency must be a whole number from 1 to 10/,
    );
  });
});

describe('one option table: the drifts it fixed', () => {
  const empty = mkdtempSync(join(tmpdir(), 'genser-config-'));
  it('convert reads GENSER_TYPE like upload does', () => {
    expect(resolveSettings('convert', {}, { GENSER_TYPE: 'update_product' }, empty).settings.type).toBe(
      'update_product',
    );
  });
  it('one byte-size parser: 5MiB works for upload, 10MiB for the sandbox', () => {
    expect(resolveSettings('upload', { maxBatchBytes: '5MiB' }, {}, empty).settings.maxBatchBytes).toBe(
      5 * 1024 ** 2,
    );
    expect(resolveSettings('sandbox', { maxBody: '10MiB' }, {}, empty).settings.maxBody).toBe(10 * 1024 ** 2);
    expect(resolveSettings('upload', { maxBatchBytes: '5MB' }, {}, empty).settings.maxBatchBytes).toBe(
      5 * 1024 ** 2,
    );
  });
  it('--timeout 2.5 is accepted by upload and events send alike; 0 says "above 0"', () => {
    expect(resolveSettings('upload', { timeout: '2.5' }, {}, empty).settings.timeout).toBe(2.5);
    expect(resolveSettings('events send', { timeout: '2.5' }, {}, empty).settings.timeout).toBe(2.5);
    expect(resolveSettings('events send', {}, {}, empty).settings.timeout).toBe(30);
    expect(() => resolveSettings('upload', { timeout: '0' }, {}, empty)).toThrow(/above 0 and at most 3600/);
  });
  it('events read GENSER_MAX_ERRORS', () => {
    expect(resolveSettings('events validate', {}, { GENSER_MAX_ERRORS: '3' }, empty).settings.maxErrors).toBe(
      3,
    );
  });
  it('"quiet": true in the config file works for every command', () => {
    const dir = configDir({ quiet: true });
    for (const command of ['validate', 'upload', 'sandbox', 'events send'] as const)
      expect(resolveSettings(command, {}, {}, dir).settings.quiet).toBe(true);
  });
  it('--no-dry-run overrides GENSER_DRY_RUN=1', () => {
    expect(resolveSettings('upload', {}, { GENSER_DRY_RUN: '1' }, empty).settings.dryRun).toBe(true);
    expect(resolveSettings('upload', { dryRun: false }, { GENSER_DRY_RUN: '1' }, empty).settings.dryRun).toBe(
      false,
    );
  });
  it('accepts the usual encoding spellings and refuses a delimiter of two characters', () => {
    for (const [given, name] of [
      ['utf8', 'utf-8'],
      ['UTF-8', 'utf-8'],
      ['Shift-JIS', 'shift_jis'],
      ['sjis', 'shift_jis'],
      ['EUC-KR', 'euc-kr'],
      ['ms949', 'cp949'],
    ])
      expect(resolveSettings('validate', { encoding: given }, {}, empty).settings.encoding).toBe(name);
    expect(() => resolveSettings('validate', { delimiter: 'ab' }, {}, empty)).toThrow(
      /must be one character/,
    );
  });
});

describe('loadConfigFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'genser-config-'));
  it('reads genser.config.json from the working directory, or nothing when absent', () => {
    expect(loadConfigFile(undefined, '--config', CONFIG_KEYS, dir).values).toEqual({});
    writeFileSync(join(dir, 'genser.config.json'), '{"batchSize": 100}');
    expect(loadConfigFile(undefined, '--config', CONFIG_KEYS, dir).values).toEqual({ batchSize: 100 });
  });
  it('fails with a usage error for a missing --config file or bad JSON', () => {
    expect(() => loadConfigFile('nope.json', '--config', CONFIG_KEYS, dir)).toThrow(UsageError);
    writeFileSync(join(dir, 'bad.json'), '{"batchSize": ');
    expect(() => loadConfigFile('bad.json', '--config', CONFIG_KEYS, dir)).toThrow(/is not valid JSON/);
  });
  it('refuses an unknown key, naming the closest known one', () => {
    writeFileSync(join(dir, 'typo.json'), '{"batchsize": 7}');
    expect(() => loadConfigFile('typo.json', '--config', CONFIG_KEYS, dir)).toThrow(
      /unknown setting "batchsize"; did you mean "batchSize"\?/,
    );
  });
  it('reads paths in a config file relative to that file', () => {
    const sub = join(dir, 'sub');
    mkdirSync(sub);
    writeFileSync(join(sub, 'genser.config.json'), '{"mapping": "m.json", "report": "/abs/r.json"}');
    const r = resolveSettings('validate', { config: 'sub/genser.config.json' }, {}, dir);
    expect(r.settings.mapping).toBe(join(sub, 'm.json'));
    expect(r.settings.report).toBe('/abs/r.json');
  });
});

describe('terminal', () => {
  it('is plain off a TTY, under NO_COLOR, TERM=dumb, CI and --json', () => {
    const tty = { write: () => true, isTTY: true, columns: 80, rows: 24 };
    expect(isFancy(tty, {})).toBe(true);
    // A pty of 0x0 (some job runners): a spinner there would redraw for ever.
    expect(isFancy({ ...tty, columns: 0, rows: 0 }, {})).toBe(false);
    expect(isFancy({ ...tty, columns: undefined }, {})).toBe(false);
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
