import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clearSecrets } from '../../src/shared/secrets.js';
import { genser } from '../helpers/run-cli.js';
import { json, type ScriptedServer, scriptedServer } from './servers.js';

/** `genser runs`: each outcome in its own column, and the target of every run. */

const root = join(import.meta.dirname, '..', '..');
const feed = join(root, 'fixtures', 'catalog.csv');
const rows = readFileSync(feed, 'utf8').trim().split('\n').length - 1;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearSecrets();
});

describe('genser runs', () => {
  it('a run whose answers were lost shows its rows as unconfirmed, not failed, with the target', async () => {
    // A 500 may come after the batch landed: its rows are unconfirmed (src/http/outcome.ts).
    server = await scriptedServer((_req, res) => json(res, 500, {}));
    const env = {
      GENSER_API_URL: server.url,
      GENSER_API_KEY: 'runs-key-123456',
      GENSER_STATE_DIR: mkdtempSync(join(tmpdir(), 'genser-runs-')),
    };
    const run = await genser(['upload', feed, '--retries', '0'], env);
    expect(run.code).toBe(4);
    const table = (await genser(['runs'], env)).stdout.trim().split('\n');
    const head = table[0].split(/\s{2,}/);
    expect(head).toEqual([
      'id',
      'start',
      'duration',
      'feed',
      'rows',
      'sent',
      'accepted',
      'rejected',
      'failed',
      'unconfirmed',
      'not sent',
      'unchanged',
      'exit',
      'target',
    ]);
    const cells = table[1].split(/\s{2,}/);
    const at = (name: string) => cells[head.indexOf(name)];
    expect(at('failed')).toBe('0');
    expect(Number(at('unconfirmed')) + Number(at('not sent'))).toBe(rows);
    expect(at('exit')).toBe('4');
    expect(at('target')).toBe(`${server.url} (standard)`);
    const shown = await genser(['runs', 'show', cells[0]], env);
    expect(shown.stdout).toMatch(/failed 0, unconfirmed \d+, not sent \d+/);
    expect(shown.stdout).not.toMatch(/^ {2}failed:/m);
  });
});
