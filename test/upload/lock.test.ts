import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExitError } from '../../src/shared/errors.js';
import { countLines } from '../../src/upload/estimate.js';
import { acquireLock, canonicalTarget, EMPTY_LOCK_GRACE_MS, lockPathFor } from '../../src/upload/lock.js';

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

function lockedError(path: string): ExitError {
  try {
    acquireLock(path).release();
  } catch (e) {
    expect(e).toBeInstanceOf(ExitError);
    expect((e as ExitError).exitCode).toBe(5);
    return e as ExitError;
  }
  throw new Error('the lock was taken');
}

describe('run lock keys (issue 19.7)', () => {
  it('one target, however it is spelled: loopback names, case, default port, trailing slash', () => {
    const key = canonicalTarget('POST http://localhost:8080/collectors/products');
    for (const t of [
      'POST http://127.0.0.1:8080/collectors/products',
      'POST http://[::1]:8080/collectors/products/',
      'POST HTTP://LocalHost:8080/collectors/products',
    ])
      expect(canonicalTarget(t)).toBe(key);
    expect(canonicalTarget('POST https://API.Example.com:443/v1/')).toBe('POST https://api.example.com/v1');
    expect(canonicalTarget('POST http://localhost:8081/collectors/products')).not.toBe(key);
    expect(canonicalTarget('POST https://localhost:8080/collectors/products')).not.toBe(key);
  });

  it('one feed, however it is reached: a symlink and a relative path are the real file', () => {
    const feed = join(dir, 'feed.csv');
    writeFileSync(feed, 'sku\n');
    const link = join(dir, 'feed-link.csv');
    symlinkSync(feed, link);
    const target = 'POST http://localhost:1/collectors/products';
    expect(lockPathFor([link], target, dir)).toBe(lockPathFor([feed], target, dir));
  });

  it('an empty lock file (made, not yet written) is held, unless it is older than a few seconds', () => {
    const path = join(dir, 'empty.lock');
    writeFileSync(path, '');
    expect(lockedError(path).message).toContain('is starting');
    const old = (Date.now() - EMPTY_LOCK_GRACE_MS - 1000) / 1000;
    utimesSync(path, old, old);
    acquireLock(path).release();
  });

  it('a run to 127.0.0.1 through a symlink waits for a running process that locked localhost', async () => {
    const feed = join(dir, 'real.csv');
    writeFileSync(feed, 'sku\n');
    const link = join(dir, 'real-link.csv');
    symlinkSync(feed, link);
    const lockModule = new URL('../../dist/upload/lock.js', import.meta.url).href;
    const holder = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { acquireLock, lockPathFor } = await import(${JSON.stringify(lockModule)});
         acquireLock(lockPathFor([${JSON.stringify(link)}], 'POST http://localhost:9/collectors/products', ${JSON.stringify(dir)}));
         console.log('locked');
         setTimeout(() => {}, 60_000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await once(holder.stdout, 'data');
      const path = lockPathFor([feed], 'POST http://127.0.0.1:9/collectors/products/', dir);
      expect(lockedError(path).message).toContain(`pid ${holder.pid}`);
    } finally {
      holder.kill('SIGKILL');
      await once(holder, 'exit');
    }
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
