import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitError } from '../../src/shared/errors.js';
import { countLines } from '../../src/upload/estimate.js';
import { acquireLock, lockPathFor } from '../../src/upload/lock.js';

const dir = mkdtempSync(join(tmpdir(), 'genser-lock-'));

describe('run lock', () => {
  it('one run per feed and target; released when done', () => {
    const path = lockPathFor(['a.csv'], 'POST http://x/collectors/products', dir);
    expect(lockPathFor(['a.csv'], 'POST http://y/collectors/products', dir)).not.toBe(path);
    const lock = acquireLock(path);
    let err: unknown;
    try {
      acquireLock(path);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExitError);
    expect((err as ExitError).exitCode).toBe(5);
    expect((err as ExitError).message).toContain(`pid ${process.pid}`);
    lock.release();
    expect(existsSync(path)).toBe(false);
    acquireLock(path).release();
  });
  it('takes over a lock whose process is gone', async () => {
    const child = spawn(process.execPath, ['-e', '0']);
    const pid = child.pid!;
    await new Promise((r) => child.on('exit', r));
    const path = join(dir, 'stale.lock');
    writeFileSync(path, String(pid));
    const lock = acquireLock(path);
    lock.release();
  });
});

describe('line count for the ETA', () => {
  it('counts physical lines of one file; unknown for stdin or several files', async () => {
    const file = join(dir, 'x.csv');
    writeFileSync(file, 'sku,name\nA,"1\n2"\nB,2\nC,3');
    expect(await countLines([file])).toBe(5);
    expect(await countLines(['-'])).toBeUndefined();
    expect(await countLines([file, file])).toBeUndefined();
  });
});
