import { chmodSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ExitError } from '../../src/shared/errors.js';
import { Spool } from '../../src/upload/spool.js';
import { ensureStateDir } from '../../src/upload/state/target.js';

/** The state directory is the owner's alone: no link planted there is written through. */
const dir = mkdtempSync(join(tmpdir(), 'genser-statedir-'));

describe('the state directory', () => {
  it('a link planted at the spool name is refused, not followed: its target is untouched', () => {
    const stateDir = join(dir, 'planted');
    mkdirSync(stateDir, { mode: 0o700 });
    const victim = join(dir, 'victim.txt');
    writeFileSync(victim, 'precious');
    symlinkSync(victim, join(stateDir, `.upload-spool.genser-${process.pid}.tmp`));
    expect(() => Spool.open(stateDir)).toThrow(
      /cannot create the upload spool .*: EEXIST \(something else is at that name: a link is never followed\)/,
    );
    expect(readFileSync(victim, 'utf8')).toBe('precious');
  });

  it('one writable by every user is refused (exit 2) with the chmod that fixes it', () => {
    const open = join(dir, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    let err: unknown;
    try {
      ensureStateDir(open);
    } catch (e) {
      err = e;
    }
    expect((err as ExitError).exitCode).toBe(2);
    expect((err as ExitError).message).toBe(
      `the state directory ${open} is writable by every user (mode 777): another user could plant files in it`,
    );
    expect((err as ExitError).hint).toContain(`chmod o-w ${open}`);
    chmodSync(open, 0o700);
    expect(() => ensureStateDir(open)).not.toThrow();
  });
});
