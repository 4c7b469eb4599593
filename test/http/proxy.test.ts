import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { noProxyMatch, proxyFor } from '../../src/http/proxy.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { genser } from '../helpers/run-cli.js';
import { API_KEY, SERVICE_KEY, start } from '../sandbox/helpers.js';
import {
  closedPort,
  type FaultProxy,
  faultProxy,
  hasTinyproxy,
  startTinyproxy,
  type Tinyproxy,
} from './proxies.js';

/**
 * Proxies (docs/networks.md): the variables as curl reads them, `--proxy`, NO_PROXY; every
 * command that makes requests goes through a real forward proxy (tinyproxy); a 407, a refused
 * CONNECT, a proxy that drops the connection and one that cannot be reached each stop the run
 * with their own line (exit 2) naming the proxy without its credentials.
 */
const target = (url: string) => new URL(url);

describe('which proxy a request takes (pure)', () => {
  it('reads the variables as curl does: lower case first, https_ for https, ALL_PROXY for both', () => {
    const env = { HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2', HTTP_PROXY: 'plain:3' };
    expect(proxyFor(target('https://api.example.com'), { env }).url?.href).toBe('http://lower:2/');
    expect(proxyFor(target('http://api.example.com'), { env })).toMatchObject({ from: 'HTTP_PROXY' });
    expect(proxyFor(target('http://api.example.com'), { env }).url?.href).toBe('http://plain:3/');
    expect(proxyFor(target('https://x.example'), { env: { ALL_PROXY: 'http://all:4' } }).url?.host).toBe(
      'all:4',
    );
    expect(proxyFor(target('https://x.example'), { env: {} }).url).toBeUndefined();
  });

  it('--proxy comes first, and NO_PROXY applies to it too', () => {
    const proxy = { url: new URL('http://flag:8'), from: '--proxy' };
    const env = { HTTPS_PROXY: 'http://env:9', NO_PROXY: 'internal.example' };
    expect(proxyFor(target('https://api.example.com'), { proxy, env })).toMatchObject({ from: '--proxy' });
    expect(proxyFor(target('https://api.internal.example'), { proxy, env })).toEqual({
      from: 'NO_PROXY',
      bypassedBy: 'internal.example',
    });
  });

  it('NO_PROXY: *, domains with their subdomains, .domain, host:port, IPs and CIDR ranges', () => {
    expect(noProxyMatch('anything.example', 443, '*')).toBe('*');
    expect(noProxyMatch('a.b.example.com', 443, 'example.com')).toBe('example.com');
    expect(noProxyMatch('example.com', 443, '.example.com')).toBe('.example.com');
    expect(noProxyMatch('notexample.com', 443, 'example.com')).toBeUndefined();
    expect(noProxyMatch('localhost', 8080, 'localhost:8080')).toBe('localhost:8080');
    expect(noProxyMatch('localhost', 8081, 'localhost:8080')).toBeUndefined();
    expect(noProxyMatch('10.1.2.3', 443, 'a.example, 10.0.0.0/8')).toBe('10.0.0.0/8');
    expect(noProxyMatch('127.0.0.1', 80, '127.0.0.1')).toBe('127.0.0.1');
    expect(noProxyMatch('[::1]', 80, '::1')).toBe('::1');
  });
});

const dir = mkdtempSync(join(tmpdir(), 'genser-proxy-'));
const feed = join(dir, 'catalog.csv');
writeFileSync(feed, readFileSync('fixtures/catalog.csv', 'utf8').split('\n').slice(0, 4).join('\n'));

let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await start({ instanceKey: 'sbx_ins_proxytest' });
});
afterAll(async () => {
  await sandbox.close();
});

/** `genser upload` of three rows to the sandbox, with its own state. */
const upload = (env: Record<string, string>, ...more: string[]) =>
  genser(
    [
      'upload',
      feed,
      '--api-url',
      sandbox.url,
      '--retry-base',
      '1',
      '--state',
      join(dir, 'state'),
      '--full',
      ...more,
    ],
    {
      GENSER_API_KEY: API_KEY,
      ...env,
    },
  );

describe('proxy faults: each its own line, exit 2, the proxy named without its credentials', () => {
  let proxy: FaultProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });
  const SECRET = 'Pr0xyS3cret-sentinel';

  it('a 407: credentials asked for (or refused), never printed, anywhere', async () => {
    proxy = await faultProxy(407);
    const withAuth = proxy.url.replace('//', `//alice:${SECRET}@`);
    const report = join(dir, 'report-407.json');
    const r = await upload(
      { HTTPS_PROXY: withAuth, HTTP_PROXY: withAuth },
      '--json',
      '--debug',
      '--report',
      report,
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `genser: the proxy ${proxy.url} (HTTP_PROXY) asks for credentials (HTTP 407): the ones given were refused`,
    );
    expect(r.stderr).toContain('hint: put them in the proxy URL');
    expect(proxy.seen[0].auth).toBe(`Basic ${Buffer.from(`alice:${SECRET}`).toString('base64')}`);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ sent: 0, notSent: 3, retries: 0 });
    for (const text of [r.stdout, r.stderr, readFileSync(report, 'utf8')]) {
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain(Buffer.from(`alice:${SECRET}`).toString('base64'));
    }
    // --proxy with the password: `genser config` shows it masked.
    const shown = await genser(['config', 'upload', '--proxy', withAuth]);
    expect(shown.stdout + shown.stderr).not.toContain(SECRET);
  });

  it('a refused CONNECT (403): the tunnel named, NO_PROXY as a way out', async () => {
    proxy = await faultProxy(403);
    const r = await upload({ GENSER_PROXY: proxy.url });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `the proxy ${proxy.url} (GENSER_PROXY) refused to open a tunnel to 127.0.0.1:`,
    );
    expect(r.stderr).not.toMatch(/retry \d|may have landed/);
  });

  it('a proxy that drops the connection', async () => {
    proxy = await faultProxy('drop');
    const r = await upload({}, '--proxy', proxy.url);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /the proxy http:\/\/127\.0\.0\.1:\d+ \(--proxy\) closed the connection before the tunnel to 127\.0\.0\.1:\d+ opened/,
    );
  });

  it('a proxy that cannot be reached', async () => {
    const port = await closedPort();
    const r = await upload({ http_proxy: `http://127.0.0.1:${port}` });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      `the proxy http://127.0.0.1:${port} (http_proxy) cannot be reached (ECONNREFUSED)`,
    );
    expect(r.stderr).toContain('unset http_proxy');
  });

  it('NO_PROXY sends the host direct past a proxy that would fail', async () => {
    const port = await closedPort();
    const r = await upload({ HTTP_PROXY: `http://127.0.0.1:${port}`, NO_PROXY: 'localhost,127.0.0.1' });
    expect(r.code, r.stderr).toBe(0);
  });
});

if (!hasTinyproxy) console.warn('skipped: the forward proxy tests need tinyproxy (installed by .ci/run)');

describe.skipIf(!hasTinyproxy)('through a real forward proxy (tinyproxy)', () => {
  let tiny: Tinyproxy;
  beforeAll(async () => {
    tiny = await startTinyproxy({ user: 'genser', password: 'tiny-pass-0042' });
  });
  afterAll(async () => {
    await tiny.stop();
  });
  const authed = () => tiny.url.replace('//', '//genser:tiny-pass-0042@');
  const port = () => new URL(sandbox.url).port;
  const tunnels = () => tiny.connects().filter((c) => c.endsWith(`:${port()}`)).length;

  it('upload, then --retry-failed, go through the proxy (with credentials)', async () => {
    const before = tunnels();
    const up = await upload({ HTTP_PROXY: authed() });
    expect(up.code, up.stderr).toBe(0);
    expect(tunnels()).toBeGreaterThan(before);
    // A run whose rows the proxy refused leaves them owed; --retry-failed sends them through tinyproxy.
    const refusing = await faultProxy(403);
    const failed = await genser(
      [
        'upload',
        feed,
        '--api-url',
        sandbox.url,
        '--state',
        join(dir, 'retry'),
        '--full',
        '--proxy',
        refusing.url,
      ],
      { GENSER_API_KEY: API_KEY },
    );
    await refusing.close();
    expect(failed.code).toBe(2);
    const mid = tunnels();
    const retried = await genser(
      ['upload', '--retry-failed', '--api-url', sandbox.url, '--state', join(dir, 'retry')],
      {
        GENSER_API_KEY: API_KEY,
        HTTP_PROXY: authed(),
      },
    );
    expect(retried.code, retried.stderr).toBe(0);
    expect(retried.stderr).toMatch(/3 accepted/);
    expect(tunnels()).toBeGreaterThan(mid);
  });

  it('wrong credentials: the 407 line', async () => {
    const r = await upload({ HTTP_PROXY: tiny.url.replace('//', '//genser:wrong-pass@') });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /the proxy http:\/\/127\.0\.0\.1:\d+ \(HTTP_PROXY\) asks for credentials \(HTTP 40[17]\): the ones given were refused/,
    );
  });

  it('stock, events send, events backfill and search go through it too', async () => {
    const env = { HTTP_PROXY: authed(), GENSER_API_KEY: API_KEY, GENSER_SERVICE_KEY: SERVICE_KEY };
    let before = tunnels();
    const stockFile = join(dir, 'stock.csv');
    writeFileSync(stockFile, 'sku,in_stock\nGS-0001,No\n');
    const stock = await genser(
      ['stock', stockFile, '--api-url', sandbox.url, '--state', join(dir, 'state')],
      env,
    );
    expect(stock.code, stock.stderr).toBe(0);
    expect(tunnels()).toBeGreaterThan(before);

    before = tunnels();
    const examples = join(dir, 'event.json');
    writeFileSync(examples, (await genser(['events', 'example', 'view_product'])).stdout);
    const sent = await genser(['events', 'send', examples, '--base-url', sandbox.url], env);
    expect(sent.code, sent.stderr).toBe(0);
    expect(tunnels()).toBeGreaterThan(before);

    before = tunnels();
    const backfill = await genser(
      [
        'events',
        'backfill',
        'fixtures/orders/woocommerce-orders.csv',
        '--preset',
        'woocommerce',
        '--source',
        'https://shop.example.com',
        '--base-url',
        sandbox.url,
      ],
      env,
    );
    expect(backfill.code, backfill.stderr).toBe(0);
    expect(tunnels()).toBeGreaterThan(before);

    before = tunnels();
    const search = await genser(
      ['search', 'tote', '--url', sandbox.url, '--instance-key', 'sbx_ins_proxytest'],
      env,
    );
    expect(search.code, search.stderr).toBe(0);
    expect(tunnels()).toBeGreaterThan(before);
  });
});
