import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAvailable } from '../../src/storage/drivers.js';
import { genser } from '../helpers/run-cli.js';

/**
 * A SQLite backend this Node cannot load (node:sqlite on Node 20, better-sqlite3 where npm did not
 * install it) is named as the cause: not "check the permissions" of a state directory that is fine.
 */
const missing = isAvailable('node') ? 'better-sqlite3' : 'node';

describe.skipIf(isAvailable(missing))(`a missing SQLite backend (${missing})`, () => {
  it('upload with a state directory says which backend is missing, exit 2', async () => {
    const state = mkdtempSync(join(tmpdir(), 'genser-nosqlite-'));
    const up = await genser(['upload', '--sample', '--sandbox', '--state', state], {
      GENSER_SQLITE: missing,
    });
    expect(up.code).toBe(2);
    expect(up.stderr).toContain(`genser: SQLite backend ${missing} is not available`);
    expect(up.stderr).not.toContain('permissions');
  });

  it('so does the sandbox', async () => {
    const sandbox = await genser(['sandbox', '--port', '0'], { GENSER_SQLITE: missing });
    expect(sandbox.code).toBe(2);
    expect(sandbox.stderr).toContain(`genser: SQLite backend ${missing} is not available`);
  });
});
