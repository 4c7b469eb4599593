import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// kill -9 during `convert -o F` leaves `.F.genser-PID.tmp` (issue 19.7): the next run to F
// removes the temporary files of processes that are gone, and only those.

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
const env = { ...process.env, NO_COLOR: '1' };

describe('temporary files of killed runs', () => {
  it('convert -o F removes the temp files beside F of runs that are gone, not of a live one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-temps-'));
    const out = join(dir, 'products.ndjson');
    // What a run killed outright leaves: its temp file, its process gone.
    const child = spawn(process.execPath, ['-e', '0']);
    await once(child, 'exit');
    const dead = `.products.ndjson.genser-${child.pid}.tmp`;
    writeFileSync(join(dir, dead), 'partial output of a killed run');
    // A temp file of a process that is alive (this one) is another run's, in progress.
    const live = `.products.ndjson.genser-${process.pid}.tmp`;
    writeFileSync(join(dir, live), 'partial');
    const unrelated = '.other.ndjson.genser-999999999.tmp';
    writeFileSync(join(dir, unrelated), 'x');

    const r = spawnSync(process.execPath, [bin, 'convert', 'fixtures/catalog.csv', '-o', out], {
      cwd: root,
      env,
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(readdirSync(dir).sort()).toEqual([live, unrelated, 'products.ndjson'].sort());
  });
});
