import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { memoryLogger } from '../../src/shared/logger.js';

describe('sandbox keys and --db', () => {
  it('keeps generated keys in the database: a restart on the same file has the same keys', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'genser-keys-db-')), 'sandbox.db');
    const first = await startSandbox({ port: 0, db, log: memoryLogger() });
    const keys = [first.apiKey, first.serviceKey, first.instanceKey];
    await first.close();
    const second = await startSandbox({ port: 0, db, log: memoryLogger() });
    expect([second.apiKey, second.serviceKey, second.instanceKey]).toEqual(keys);
    await second.close();
    // Keys given by the user win, and are not stored over the kept ones.
    const given = await startSandbox({ port: 0, db, apiKey: 'given-api-key-1', log: memoryLogger() });
    expect(given.apiKey).toBe('given-api-key-1');
    expect(given.serviceKey).toBe(keys[1]);
    await given.close();
    const again = await startSandbox({ port: 0, db, log: memoryLogger() });
    expect(again.apiKey).toBe(keys[0]);
    await again.close();
  });

  it('makes new keys for each in-memory sandbox', async () => {
    const a = await startSandbox({ port: 0, log: memoryLogger() });
    const b = await startSandbox({ port: 0, log: memoryLogger() });
    expect(a.apiKey).not.toBe(b.apiKey);
    await a.close();
    await b.close();
  });
});
