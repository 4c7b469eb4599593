import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { API_KEY, checkKey, loadKey, looksLikeKey, SERVICE_KEY } from '../../src/cli/keys.js';
import type { CommandName } from '../../src/cli/option-table.js';
import { resolveSettings } from '../../src/cli/settings.js';
import { UsageError } from '../../src/shared/errors.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { clearSecrets, redact } from '../../src/shared/secrets.js';

const dir = mkdtempSync(join(tmpdir(), 'genser-keys-'));
let configs = 0;
/** Loads the key as the CLI does: options resolved from flags, env and a config file in `dir`. */
function load(
  spec: typeof API_KEY,
  flags: Record<string, unknown> = {},
  env: NodeJS.ProcessEnv = {},
  config: Record<string, unknown> = {},
  log = memoryLogger(),
) {
  const cwd = join(dir, `cwd${configs++}`);
  mkdirSync(cwd);
  writeFileSync(join(cwd, 'genser.config.json'), JSON.stringify(config));
  const command: CommandName = spec === API_KEY ? 'upload' : 'events send';
  return loadKey(spec, resolveSettings(command, flags, env, cwd), env, log);
}

afterEach(() => clearSecrets());

describe('loading secret keys', () => {
  const SENTINEL = 'SENTINEL-key-7f3a9c';

  it('trims surrounding whitespace of a key file, prefers it over env, and registers the key as a secret', () => {
    const file = join(dir, 'key');
    writeFileSync(file, `  ${SENTINEL}\n`);
    const key = load(API_KEY, { apiKeyFile: file }, { GENSER_API_KEY: 'ignored-env' });
    expect(key).toEqual({ value: SENTINEL, from: `key file ${file}` });
    expect(redact(`oops ${SENTINEL}`)).toBe('oops ***');
  });

  it('refuses inner whitespace without showing the key', () => {
    let err: unknown;
    try {
      checkKey('abc def-secret', 'API key', 'GENSER_API_KEY');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe(
      'the API key from GENSER_API_KEY contains whitespace inside it (a space, tab or line break)',
    );
  });

  it('names an unreadable key file, and reads env, env file and config in order', () => {
    expect(() => load(API_KEY, { apiKeyFile: join(dir, 'missing') })).toThrow(
      /cannot read the API key file .*\(--api-key-file\): no such file/,
    );
    expect(load(API_KEY, {}, { GENSER_API_KEY: ' env-key-1 ' })?.value).toBe('env-key-1');
    const file = join(dir, 'cfgkey');
    writeFileSync(file, 'cfg-key-1');
    expect(load(API_KEY, {}, { GENSER_API_KEY_FILE: file })?.from).toBe(`key file ${file}`);
    expect(load(API_KEY, {}, {}, { apiKeyFile: file })?.value).toBe('cfg-key-1');
    expect(load(API_KEY)).toBeUndefined();
  });

  it('reads the service key from its own names, not the API key', () => {
    const file = join(dir, 'svc');
    writeFileSync(file, 'svc-key-1\n');
    expect(load(SERVICE_KEY, {}, { GENSER_API_KEY: 'api-key-1' })).toBeUndefined();
    expect(load(SERVICE_KEY, { serviceKeyFile: file })?.value).toBe('svc-key-1');
    expect(() => load(SERVICE_KEY, {}, { GENSER_SERVICE_KEY: '   ' })).toThrow(
      'the service key from GENSER_SERVICE_KEY is empty',
    );
  });

  it('never echoes a key given where the key file path goes, from the flag or the environment', () => {
    const KEY = 'SENTINEL-abc123XYZ';
    expect(looksLikeKey(KEY)).toBe(true);
    expect(looksLikeKey('./key.txt')).toBe(false);
    expect(looksLikeKey('/home/me/.genser/key')).toBe(false);
    for (const [flags, env] of [
      [{ apiKeyFile: KEY }, {}],
      [{}, { GENSER_API_KEY_FILE: KEY }],
    ] as const) {
      let message = '';
      try {
        load(API_KEY, flags, env);
      } catch (err) {
        message = `${(err as UsageError).message} ${(err as UsageError).hint}`;
      }
      expect(message).toMatch(/the name looks like a key, not a path, so it is not shown/);
      expect(message).not.toContain(KEY);
      // Registered as a secret: any other output masks it too.
      expect(redact(`x ${KEY} y`)).toBe('x *** y');
    }
  });

  it('refuses a key written into a config file, saying how to give it instead', () => {
    for (const [spec, key] of [
      [API_KEY, 'apiKey'],
      [SERVICE_KEY, 'serviceKey'],
    ] as const) {
      let err: UsageError | undefined;
      try {
        load(spec, {}, {}, { [key]: 'cfg-inline-1' });
      } catch (e) {
        err = e as UsageError;
      }
      expect(err).toBeInstanceOf(UsageError);
      expect(err?.message).toMatch(
        new RegExp(`"${key}" holds the ${spec.label} itself, which a config file must not`),
      );
      expect(err?.hint).toBe(
        `put the key in a file readable only by you (chmod 600) and name it with "${spec.fileOption}", or set ${spec.env}`,
      );
      expect(`${err?.message} ${err?.hint}`).not.toContain('cfg-inline-1');
    }
  });

  it('reads a key file ending in a newline or CRLF as the key alone', () => {
    for (const [name, text] of [
      ['lf', 'file-key-LF\n'],
      ['crlf', 'file-key-CRLF\r\n'],
      ['bare', 'file-key-BARE'],
    ]) {
      const file = join(dir, `eol-${name}`);
      writeFileSync(file, text, { mode: 0o600 });
      chmodSync(file, 0o600);
      expect(load(API_KEY, { apiKeyFile: file })?.value).toBe(text.trim());
    }
  });

  it('uses a key file that group or others can read, with a warning naming chmod 600', () => {
    const file = join(dir, 'open-key');
    writeFileSync(file, 'open-key-1\n');
    for (const [mode, who] of [
      [0o644, 'others'],
      [0o640, 'its group'],
    ] as const) {
      chmodSync(file, mode);
      const log = memoryLogger();
      expect(load(API_KEY, { apiKeyFile: file }, {}, {}, log)?.value).toBe('open-key-1');
      expect(log.lines).toEqual([
        expect.stringContaining(
          `the API key file ${file} is readable by ${who} (mode ${mode.toString(8)}): run chmod 600 ${file}`,
        ),
      ]);
      expect(log.lines.join('\n')).not.toContain('open-key-1');
    }
    chmodSync(file, 0o600);
    const quiet = memoryLogger();
    load(API_KEY, { apiKeyFile: file }, {}, {}, quiet);
    expect(quiet.lines).toEqual([]);
  });
});
