import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { clearSecrets } from '../../src/shared/secrets.js';
import { genser } from '../helpers/run-cli.js';
import { hasTinyproxy, startTinyproxy } from '../http/proxies.js';
import { json, productsOf, type ScriptedServer, scriptedServer } from '../upload/servers.js';
import { type FeedServer, feedServer } from './feed-server.js';

/** Feeds fetched from a URL (docs/reading.md, "Feeds from a URL"), against real servers on 127.0.0.1. */

const root = join(import.meta.dirname, '..', '..');
const catalog = readFileSync(join(root, 'fixtures', 'catalog.csv'));
const dir = mkdtempSync(join(tmpdir(), 'genser-url-feed-'));
let n = 0;
const fresh = (name: string) => join(dir, `${name}-${++n}`);

let feeds: FeedServer;
let api: ScriptedServer | undefined;
beforeEach(async () => {
  feeds = await feedServer();
});
afterEach(async () => {
  await feeds.close();
  await api?.close();
  api = undefined;
  clearSecrets();
});

const rowsOf = (stdout: string) => (JSON.parse(stdout) as { rows: { total: number; valid: number } }).rows;

describe('genser validate|convert URL', () => {
  it('reads a feed from a URL as from a file: plain, gzip by Content-Encoding, and a .csv.gz', async () => {
    const local = await genser(['validate', join(root, 'fixtures', 'catalog.csv'), '--json']);
    feeds.serve('/plain.csv', { body: catalog });
    feeds.serve('/encoded.csv', { body: catalog, gzip: true });
    feeds.serve('/file.csv.gz', { body: gzipSync(catalog) });
    for (const path of ['/plain.csv', '/encoded.csv', '/file.csv.gz']) {
      const r = await genser(['validate', `${feeds.url}${path}`, '--json']);
      expect(r.code, `${path}: ${r.stderr}`).toBe(0);
      expect(rowsOf(r.stdout), path).toEqual(rowsOf(local.stdout));
    }
    expect(feeds.requests.every((q) => q.headers['accept-encoding'] === 'gzip')).toBe(true);
  });

  it('convert writes the same payloads from a URL as from the file', async () => {
    feeds.serve('/feed.csv', { body: catalog });
    const fromFile = await genser(['convert', join(root, 'fixtures', 'catalog.csv')]);
    const fromUrl = await genser(['convert', `${feeds.url}/feed.csv`]);
    expect(fromUrl.code, fromUrl.stderr).toBe(0);
    const skus = (out: string) =>
      out
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { sku: string }).sku);
    expect(skus(fromUrl.stdout)).toEqual(skus(fromFile.stdout));
  });

  it('sends GENSER_FEED_AUTH and never shows it; a refusal names the variable', async () => {
    const token = 'Bearer feed-token-7f3a9c';
    feeds.serve('/private.csv', { body: catalog, requires: ['authorization', token] });
    feeds.serve('/keyed.csv', { body: catalog, requires: ['x-feed-key', 'k-5521-secret'] });
    const ok = await genser(['validate', `${feeds.url}/private.csv`], { GENSER_FEED_AUTH: token });
    expect(ok.code, ok.stderr).toBe(0);
    const named = await genser(['validate', `${feeds.url}/keyed.csv`], {
      GENSER_FEED_AUTH: 'X-Feed-Key: k-5521-secret',
    });
    expect(named.code, named.stderr).toBe(0);

    const none = await genser(['validate', `${feeds.url}/private.csv`]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('the server refused the download (HTTP 401)');
    expect(none.stderr).toContain('GENSER_FEED_AUTH');
    const wrong = await genser(['validate', `${feeds.url}/private.csv`, '--json'], {
      GENSER_FEED_AUTH: 'Bearer wrong-token-0042',
    });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr + wrong.stdout).not.toContain('wrong-token-0042');
  });

  it('names a URL without its query (a token there is never shown) and refuses credentials in it', async () => {
    feeds.serve('/q.csv', { body: Buffer.from('sku,name\nA1,x\n') });
    const r = await genser(['validate', `${feeds.url}/q.csv?token=query-secret-991`, '--json']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`${feeds.url}/q.csv?…`);
    expect(r.stdout + r.stderr).not.toContain('query-secret-991');
    expect(feeds.requests[0].path).toBe('/q.csv?token=query-secret-991');

    const withPassword = `http://user:pw-in-url-4471@127.0.0.1:1/feed.csv`;
    const refused = await genser(['validate', withPassword]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('credentials in a feed URL are refused');
    expect(refused.stderr).not.toContain('pw-in-url-4471');
  });

  it('a 404, an unknown type, and a cut download are read errors (exit 2) with one line', async () => {
    feeds.serve('/cut.csv', { body: catalog, cut: true });
    feeds.serve('/export', { body: catalog });
    const missing = await genser(['validate', `${feeds.url}/nothing.csv`]);
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining('no feed there (HTTP 404)')]);
    const untyped = await genser(['validate', `${feeds.url}/export`]);
    expect(untyped.stderr).toContain('cannot tell the input type from the URL');
    expect((await genser(['validate', `${feeds.url}/export`, '--input-type', 'csv'])).code).toBe(0);
    const cut = await genser(['convert', `${feeds.url}/cut.csv`]);
    expect(cut.code).toBe(2);
    expect(cut.stderr).toMatch(/the download was cut after \d+ bytes/);
    expect(cut.stderr).not.toMatch(/\n\s+at /);
  });

  it.skipIf(!hasTinyproxy)('goes through the proxy (needs tinyproxy)', async () => {
    const proxy = await startTinyproxy();
    try {
      feeds.serve('/proxied.csv', { body: catalog });
      const r = await genser(['validate', `${feeds.url}/proxied.csv`], { HTTP_PROXY: proxy.url });
      expect(r.code, r.stderr).toBe(0);
      expect(proxy.connects()).toContain(new URL(feeds.url).host);
    } finally {
      await proxy.stop();
    }
  });
});

describe('genser upload URL', () => {
  const out = (body: string) => productsOf(body).filter((p) => JSON.stringify(p).includes('OutOfStock'));

  for (const guard of ['default', '100%']) {
    it(`a download cut half-way marks nothing missing (--max-change ${guard})`, async () => {
      api = await scriptedServer((_req, res) => json(res, 200, {}));
      const env = {
        GENSER_API_URL: api.url,
        GENSER_API_KEY: 'url-key-123456',
        GENSER_STATE_DIR: fresh('state'),
      };
      const extra = guard === 'default' ? [] : ['--max-change', guard];
      feeds.serve('/feed.csv', { body: catalog });
      const first = await genser(['upload', `${feeds.url}/feed.csv`, ...extra], env);
      expect(first.code, first.stderr).toBe(0);
      api.requests.length = 0;

      feeds.serve('/feed.csv', { body: catalog, cut: true });
      const cut = await genser(
        ['upload', `${feeds.url}/feed.csv`, '--missing', 'out-of-stock', ...extra],
        env,
      );
      expect(cut.code).toBe(2);
      expect(cut.stderr).toMatch(/the download was cut after \d+ bytes/);
      expect(api.requests.flatMap((r) => out(r.body))).toEqual([]);
    });
  }
});

describe('genser upload URL: an unchanged feed is not downloaded', () => {
  const runIdOf = (stderr: string) => /feed unchanged since run ([0-9a-f]{8})/.exec(stderr)?.[1];

  it('sends If-None-Match after a run that ended well: 304 is exit 0 and nothing is sent; a new ETag is read', async () => {
    api = await scriptedServer((_req, res) => json(res, 200, {}));
    const env = {
      GENSER_API_URL: api.url,
      GENSER_API_KEY: 'etag-key-123456',
      GENSER_STATE_DIR: fresh('state'),
    };
    feeds.serve('/feed.csv', { body: catalog, etag: '"v1"' });
    const url = `${feeds.url}/feed.csv?token=etag-query-secret`;
    const first = await genser(['upload', url], env);
    expect(first.code, first.stderr).toBe(0);
    expect(feeds.requests[0].headers['if-none-match']).toBeUndefined();
    const sent = api.requests.length;
    expect(sent).toBeGreaterThan(0);

    const second = await genser(['upload', url, '--missing', 'out-of-stock'], env);
    expect(second.code, second.stderr).toBe(0);
    expect(feeds.requests[1].headers['if-none-match']).toBe('"v1"');
    const since = runIdOf(second.stderr);
    expect(since).toBeDefined();
    expect(api.requests.length).toBe(sent);
    const runs = await genser(['runs', '--json'], env);
    expect(runs.stdout).toContain(since);
    // The unchanged run is in the history, ended with exit 0 (not left as if killed).
    const [newest] = (JSON.parse(runs.stdout) as { runs: { id: string; exitCode?: number }[] }[])[0].runs;
    expect(newest.id).not.toBe(since);
    expect(newest.exitCode).toBe(0);
    expect(runs.stdout + second.stderr).not.toContain('etag-query-secret');

    feeds.serve('/feed.csv', { body: catalog, etag: '"v2"' });
    const third = await genser(['upload', url], env);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).not.toContain('feed unchanged');
  });

  it('Last-Modified alone works too; a run that did not end well keeps nothing to compare with', async () => {
    let reject = true;
    api = await scriptedServer((_q, res) => {
      if (reject) return json(res, 503, {});
      json(res, 200, {});
    });
    const env = {
      GENSER_API_URL: api.url,
      GENSER_API_KEY: 'lm-key-123456',
      GENSER_STATE_DIR: fresh('state'),
      GENSER_RETRIES: '0',
    };
    const lastModified = 'Wed, 25 Nov 2026 03:00:00 GMT';
    feeds.serve('/feed.csv', { body: catalog, lastModified });
    const failed = await genser(['upload', `${feeds.url}/feed.csv`], env);
    expect(failed.code).not.toBe(0);
    reject = false;
    const again = await genser(['upload', `${feeds.url}/feed.csv`], env);
    expect(feeds.requests[1].headers['if-modified-since']).toBeUndefined();
    expect(again.code, again.stderr).toBe(0);
    const unchanged = await genser(['upload', `${feeds.url}/feed.csv`], env);
    expect(feeds.requests[2].headers['if-modified-since']).toBe(lastModified);
    expect(unchanged.code).toBe(0);
    expect(runIdOf(unchanged.stderr)).toBeDefined();
  });
});
