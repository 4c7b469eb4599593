import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConfigFile } from '../../src/cli/config.js';
import { API_KEY, checkKey, loadKey, SERVICE_KEY } from '../../src/cli/keys.js';
import { UsageError } from '../../src/shared/errors.js';
import { clearSecrets, redact } from '../../src/shared/secrets.js';

const dir = mkdtempSync(join(tmpdir(), 'genser-keys-'));
const src = (flags: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = {}, config: ConfigFile = {}) => ({
  flags,
  env,
  config,
});

afterEach(() => clearSecrets());

describe('loading secret keys', () => {
  const SENTINEL = 'SENTINEL-key-7f3a9c';

  it('trims surrounding whitespace of a key file, prefers it over env, and registers the key as a secret', () => {
    const file = join(dir, 'key');
    writeFileSync(file, `  ${SENTINEL}\n`);
    const key = loadKey(API_KEY, src({ apiKeyFile: file }, { GENSER_API_KEY: 'ignored-env' }));
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
    expect(() => loadKey(API_KEY, src({ apiKeyFile: join(dir, 'missing') }))).toThrow(
      /cannot read the API key file .*\(--api-key-file\): no such file/,
    );
    expect(loadKey(API_KEY, src({}, { GENSER_API_KEY: ' env-key-1 ' }))?.value).toBe('env-key-1');
    const file = join(dir, 'cfgkey');
    writeFileSync(file, 'cfg-key-1');
    expect(loadKey(API_KEY, src({}, { GENSER_API_KEY_FILE: file }))?.from).toBe(`key file ${file}`);
    expect(loadKey(API_KEY, src({}, {}, { apiKeyFile: file }))?.value).toBe('cfg-key-1');
    expect(loadKey(API_KEY, src({}, {}, { apiKey: 'cfg-inline-1' }))?.value).toBe('cfg-inline-1');
    expect(loadKey(API_KEY, src())).toBeUndefined();
  });

  it('reads the service key from its own names, not the API key', () => {
    const file = join(dir, 'svc');
    writeFileSync(file, 'svc-key-1\n');
    expect(loadKey(SERVICE_KEY, src({}, { GENSER_API_KEY: 'api-key-1' }))).toBeUndefined();
    expect(loadKey(SERVICE_KEY, src({ serviceKeyFile: file }))?.value).toBe('svc-key-1');
    expect(() => loadKey(SERVICE_KEY, src({}, { GENSER_SERVICE_KEY: '   ' }))).toThrow(
      'the service key from GENSER_SERVICE_KEY is empty',
    );
  });
});
