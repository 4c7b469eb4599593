import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SqliteState } from '../../src/upload/state/sqlite-state.js';
import { genser } from '../helpers/run-cli.js';

/** docs/architecture.md: values from a state file never reach a terminal or a CI log raw. */
describe('genser runs prints the state file values escaped', () => {
  it('a feed name and a server rejection text cannot clear the screen or start a CI command line', async () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'genser-runs-print-')), 'state');
    mkdirSync(dir);
    const state = await SqliteState.open(dir, {
      apiUrl: 'https://api.example.com',
      format: 'standard',
      keyFingerprint: 'f'.repeat(64),
    });
    const id = await state.startRun('feed\x1b[2J\n::error::name.csv');
    const report = {
      failures: [
        {
          kind: 'rejected',
          file: 'f\x1b]0;t\x07.csv',
          row: 1,
          line: 2,
          sku: 'S\r',
          message: 'bad\x1b[2J\n::error::pwned',
        },
      ],
    };
    await state.finishRun(id, { exitCode: 1, durationMs: 10, report: JSON.stringify(report) });
    await state.close();

    const list = await genser(['runs', '--state', dir]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('feed\\x1b[2J\\x0a::error::name.csv');
    const shown = await genser(['runs', 'show', id, '--state', dir]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('feed: feed\\x1b[2J\\x0a::error::name.csv');
    expect(shown.stdout).toContain(
      'rejected: f\\x1b]0;t\\x07.csv row 1 (line 2, sku S\\x0d): bad\\x1b[2J\\x0a::error::pwned',
    );
    for (const out of [list.stdout, shown.stdout]) {
      expect(out).not.toMatch(/[\x1b\x07\r]/);
      expect(out).not.toMatch(/^::error::/m);
    }
  });

  it("genser init prints the feed's column names escaped", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-init-print-'));
    const feed = join(dir, 'feed.csv');
    writeFileSync(feed, 'sku,name,"odd\x1b[2J\r\n::error::col"\nA-1,Bag,x\n');
    const ran = await genser(['init', feed, '-o', join(dir, 'mapping.json')]);
    expect(ran.code).toBe(0);
    expect(ran.stderr).toContain('Not mapped (1): odd\\x1b[2J\\x0a::error::col');
    expect(ran.stderr).not.toMatch(/[\x1b\r]/);
    expect(ran.stderr).not.toMatch(/^::error::/m);
  });
});
