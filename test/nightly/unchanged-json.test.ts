import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearSecrets } from '../../src/shared/secrets.js';
import { genser } from '../helpers/run-cli.js';
import { type FeedServer, feedServer } from '../read/feed-server.js';
import { json, type ScriptedServer, scriptedServer } from '../upload/servers.js';

/** `--json` on a feed unchanged since the last complete run (304): still one document on stdout. */

const root = join(import.meta.dirname, '..', '..');
const catalog = readFileSync(join(root, 'fixtures', 'catalog.csv'));
const dir = mkdtempSync(join(tmpdir(), 'genser-unchanged-json-'));

let feeds: FeedServer;
let api: ScriptedServer;
beforeEach(async () => {
  feeds = await feedServer();
  api = await scriptedServer((_req, res) => json(res, 200, {}));
});
afterEach(async () => {
  await feeds.close();
  await api.close();
  clearSecrets();
});

interface Doc {
  rows: { total: number };
  summary: { rows: number; sent: number; accepted: number; dryRun: boolean };
  feedUnchanged?: { sinceRun: string | null; url: string };
  failures: unknown[];
  batches: unknown[];
}

describe('genser upload URL --json, the feed unchanged', () => {
  it('prints one document shaped as a normal run, saying the feed is unchanged and since which run', async () => {
    const env = {
      GENSER_API_URL: api.url,
      GENSER_API_KEY: 'json-unchanged-key-1',
      GENSER_STATE_DIR: join(dir, 'state'),
    };
    feeds.serve('/feed.csv', { body: catalog, etag: '"v1"' });
    const url = `${feeds.url}/feed.csv?token=json-query-secret`;
    const first = await genser(['upload', url, '--json'], env);
    expect(first.code, first.stderr).toBe(0);
    const normal = JSON.parse(first.stdout) as Doc;
    expect(normal.feedUnchanged).toBeUndefined();
    // The feed named as validate names it: without its query (a token there is never shown).
    expect(first.stdout).not.toContain('json-query-secret');
    const sent = api.requests.length;

    const report = join(dir, 'report.json');
    const second = await genser(['upload', url, '--json', '--report', report], env);
    expect(second.code, second.stderr).toBe(0);
    expect(api.requests.length).toBe(sent);
    const doc = JSON.parse(second.stdout) as Doc;
    // A normal run's keys (less `searchable`: nothing was accepted), plus feedUnchanged.
    const keys = Object.keys(normal).filter((k) => k !== 'searchable');
    expect(Object.keys(doc).sort()).toEqual([...keys, 'feedUnchanged'].sort());
    expect(doc.summary).toMatchObject({ rows: 0, sent: 0, accepted: 0, dryRun: false });
    expect(doc.rows.total).toBe(0);
    expect(doc.feedUnchanged?.url).toBe(`${feeds.url}/feed.csv?…`);
    expect(second.stdout).not.toContain('json-query-secret');
    // The run it refers to: the first one, as `genser runs` lists it.
    const runs = JSON.parse((await genser(['runs', '--json'], env)).stdout) as { runs: { id: string }[] }[];
    const ids = runs[0].runs.map((r) => r.id);
    expect(ids).toHaveLength(2);
    expect(doc.feedUnchanged?.sinceRun).toBe(ids[1]);
    expect(JSON.parse(readFileSync(report, 'utf8'))).toEqual(doc);

    // Without --json: the one line on stderr, nothing on stdout.
    const plain = await genser(['upload', url, '--quiet'], env);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe('');
    expect(plain.stderr.trim()).toBe(
      `feed unchanged since run ${ids[1]}: ${feeds.url}/feed.csv?… answered 304 Not Modified; nothing was downloaded or sent`,
    );
  });
});
