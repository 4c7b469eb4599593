import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostCheck, hostName } from '../../src/sandbox/guards.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { envelope, postStandard, product, start } from './helpers.js';

/** A raw request, so that Host and Origin are exactly what a browser (or an attacker) sends. */
function raw(
  url: string,
  path: string,
  method: string,
  headers: Record<string, string>,
  body?: string,
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        text += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, headers: res.headers }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('the sandbox refuses what a web page could make it do (docs/sandbox.md, "Who can reach it")', () => {
  let sb: RunningSandbox;
  let host: string;
  const total = async () =>
    ((await (await fetch(`${sb.url}/_sandbox/stats`)).json()) as { products: { total: number } }).products
      .total;

  beforeAll(async () => {
    sb = await start();
    host = new URL(sb.url).host;
    expect((await postStandard(sb.url, envelope([product('G-1'), product('G-2')]))).status).toBe(200);
  });
  afterAll(async () => {
    await sb.close();
  });

  it('a simple cross-origin POST (what a no-cors fetch or a form sends) cannot reset or run the batch', async () => {
    const simple: Record<string, string>[] = [
      { origin: 'https://evil.example', 'content-type': 'text/plain;charset=UTF-8' },
      { origin: 'null' },
      { 'content-type': 'application/x-www-form-urlencoded' },
      {},
    ];
    for (const headers of simple)
      for (const path of ['/_sandbox/reset', '/_sandbox/batch']) {
        const res = await raw(sb.url, path, 'POST', { host, ...headers }, '');
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(403);
        expect(JSON.parse(res.body).detail).toMatch(/other origins|needs Content-Type: application\/json/);
      }
    expect(await total()).toBe(2);
    // A JSON content type from a foreign origin (a page would need a preflight, never granted): refused.
    const foreign = await raw(sb.url, '/_sandbox/reset', 'POST', {
      host,
      origin: 'https://evil.example',
      'content-type': 'application/json',
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
    // A foreign page cannot read the admin data either.
    expect(
      (await raw(sb.url, '/_sandbox/products', 'GET', { host, origin: 'https://evil.example' })).status,
    ).toBe(403);
    expect(await total()).toBe(2);
  });

  it("genser's own clients still reach it: JSON content type or the X-Genser-Sandbox header, same origin", async () => {
    expect(
      (await raw(sb.url, '/_sandbox/batch', 'POST', { host, 'content-type': 'application/json' })).status,
    ).toBe(200);
    expect((await raw(sb.url, '/_sandbox/stats', 'GET', { host, origin: sb.url })).status).toBe(200);
    const reset = await raw(sb.url, '/_sandbox/reset', 'POST', { host, 'x-genser-sandbox': '1' });
    expect(reset.status).toBe(200);
    expect(await total()).toBe(0);
    expect((await postStandard(sb.url, envelope([product('G-1'), product('G-2')]))).status).toBe(200);
  });

  it('answers only to the Host names of its address (DNS rebinding)', async () => {
    const port = new URL(sb.url).port;
    for (const name of ['evil.example', 'evil.example.', '127.0.0.1.nip.io', 'localhost.evil.example']) {
      const res = await raw(sb.url, '/_sandbox/products', 'GET', { host: `${name}:${port}` });
      expect(res.status, name).toBe(403);
      expect(res.body).not.toContain('G-1');
      expect(JSON.parse(res.body).detail).toContain('does not answer to Host');
      // The contract's endpoints and the client's too: the whole server.
      expect((await raw(sb.url, '/client/search', 'POST', { host: name }, '{}')).status, name).toBe(403);
    }
    for (const name of [
      `127.0.0.1:${port}`,
      `localhost:${port}`,
      `LOCALHOST.:${port}`,
      `[::1]:${port}`,
      'localhost',
    ])
      expect((await raw(sb.url, '/_sandbox/health', 'GET', { host: name })).status, name).toBe(200);
  });

  it('the names it answers to follow from the address it is bound to', () => {
    expect(hostName('[::1]:8080')).toBe('::1');
    expect(hostName('Example.COM.:80')).toBe('example.com');
    const loopback = hostCheck('127.0.0.1');
    expect(['127.0.0.1:1', '127.0.0.2', 'localhost', '[::1]'].every(loopback)).toBe(true);
    expect(['10.0.0.5:8080', 'sandbox.internal', 'evil.example'].some(loopback)).toBe(false);
    const named = hostCheck('sandbox.internal');
    expect(named('sandbox.internal:8080')).toBe(true);
    expect(named('evil.example')).toBe(false);
    // Bound to every address: address literals (nothing to rebind) are fine, other names are not.
    const every = hostCheck('0.0.0.0');
    expect(every('10.0.0.5:8080')).toBe(true);
    expect(every('[fe80::1]:8080')).toBe(true);
    expect(every('evil.example:8080')).toBe(false);
    expect(hostCheck('::')('evil.example')).toBe(false);
  });

  it('404, 405 and Allow come from one route table on every path', async () => {
    const cases: [string, string, number, string | undefined][] = [
      ['GET', '/_sandbox/reset', 405, 'POST'],
      ['POST', '/_sandbox/stats', 405, 'GET, HEAD'],
      ['DELETE', '/_sandbox/products/G-1', 405, 'GET, HEAD'],
      ['GET', '/collectors/products', 405, 'POST'],
      ['GET', '/client/search', 405, 'POST, OPTIONS'],
      ['POST', '/genser.js', 405, 'GET, HEAD'],
      ['POST', '/_sandbox/demo', 405, 'GET, HEAD'],
      ['POST', '/', 405, 'GET, HEAD'],
      ['GET', '/_sandbox/nothing', 404, undefined],
      ['GET', '/nothing', 404, undefined],
      // The contract's paths are exact: no trailing slash.
      ['POST', '/collectors/products/', 404, undefined],
    ];
    for (const [method, path, status, allow] of cases) {
      const res = await raw(sb.url, path, method, { host, 'x-genser-sandbox': '1' });
      expect(res.status, `${method} ${path}`).toBe(status);
      expect(res.headers.allow, `${method} ${path}`).toBe(allow);
    }
    // The admin paths take a trailing slash; the demo page is found by its own route, not by check order.
    expect((await raw(sb.url, '/_sandbox/stats/', 'GET', { host })).status).toBe(200);
    expect([200, 503]).toContain((await raw(sb.url, '/_sandbox/demo', 'GET', { host })).status);
  });
});
