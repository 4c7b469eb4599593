import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallError } from '../../src/client/call.js';
import { createClient, type FetchLike, type LogAnswer } from '../../src/client/client.js';
import type { SearchAnswer } from '../../src/client/search-answer.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { envelope, postStandard, product, start } from '../sandbox/helpers.js';

const KEY = 'client-test-instance-key';
const nodeFetch = globalThis.fetch as unknown as FetchLike;

/** The outcome of a call: which callback ran, with what. */
function outcome<T>(call: {
  success(cb: (r: T) => void): unknown;
  error(cb: (e: CallError) => void): unknown;
}): Promise<{ ok: true; value: T } | { ok: false; error: CallError }> {
  return new Promise((resolve) => {
    call.success((value) => resolve({ ok: true, value }));
    call.error((error) => resolve({ ok: false, error }));
  });
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

describe('client under Node, against a running sandbox', () => {
  let sandbox: RunningSandbox;
  let endpoint: string;
  beforeAll(async () => {
    sandbox = await start({ instanceKey: KEY });
    const products = [
      product('GS-1', {
        name: [
          { '@value': '가죽 토트백', '@language': 'ko' },
          { '@value': 'Leather Tote Bag', '@language': 'en' },
        ],
      }),
      product('GS-2', {
        name: [
          { '@value': '반지갑', '@language': 'ko' },
          { '@value': 'Bifold Wallet', '@language': 'en' },
        ],
      }),
    ];
    expect((await postStandard(sandbox.url, envelope(products))).status).toBe(200);
    await sandbox.runBatch();
    endpoint = `${sandbox.url}/client`;
  });
  afterAll(async () => {
    await sandbox.close();
  });

  const events = async (type: string) =>
    (await fetch(`${sandbox.url}/_sandbox/events?type=${type}`)).json() as Promise<any>;

  it('searches, then logs DI by fetch with keepalive when there is no sendBeacon', async () => {
    const sent: { url: string; keepalive?: boolean; type: string }[] = [];
    const recordingFetch: FetchLike = (url, init) => {
      sent.push({ url, keepalive: init.keepalive, type: init.headers['content-type'] });
      return nodeFetch(url, init);
    };
    const client = createClient({ endpoint: `${endpoint}/` }, { fetch: recordingFetch });
    const found = await outcome(client.call('searchProducts', { instanceKey: KEY, queryText: '토트백' }));
    expect(found.ok).toBe(true);
    const res = (found as { value: SearchAnswer }).value;
    expect(res.type).toBe('SEARCH');
    expect(res.products.map((p) => [p.code, p.name])).toEqual([['GS-1', '가죽 토트백']]);
    const goods = res.products.map((p) => ({ code: p.code, name: p.name }));
    const di = await outcome(client.call('DI', { instance: { key: KEY }, goods, requestId: res.requestId }));
    expect(di).toEqual({ ok: true, value: { type: 'DI', requestId: res.requestId, via: 'fetch' } });
    expect(sent.map((s) => s.url)).toEqual([`${endpoint}/search`, `${endpoint}/di`]);
    expect(sent[1]).toMatchObject({ keepalive: true, type: 'text/plain;charset=UTF-8' });
    const stored = await events('DI');
    expect(stored.items.find((e: any) => e.requestId === res.requestId)).toMatchObject({
      requestKnown: true,
      body: { goods },
    });
  });

  it('logs CL through sendBeacon when there is one, and falls back to fetch when it refuses', async () => {
    const beacons: string[] = [];
    let accept = true;
    const client = createClient(
      { endpoint },
      {
        fetch: nodeFetch,
        // A beacon the way a browser sends one: text/plain, answer unread.
        sendBeacon: (url, data) => {
          if (!accept) return false;
          beacons.push(url);
          void nodeFetch(url, {
            method: 'POST',
            headers: { 'content-type': 'text/plain;charset=UTF-8' },
            body: data,
          });
          return true;
        },
      },
    );
    const { requestId } = (
      (await outcome(client.call('searchProducts', { instanceKey: KEY, queryText: 'wallet' }))) as {
        value: SearchAnswer;
      }
    ).value;
    const goods = [{ code: 'GS-2', name: 'Bifold Wallet' }];
    const viaBeacon = await outcome(client.call('CL', { instance: { key: KEY }, goods, requestId }));
    expect((viaBeacon as { value: LogAnswer }).value.via).toBe('beacon');
    expect(beacons).toEqual([`${endpoint}/cl`]);
    accept = false;
    const viaFetch = await outcome(client.call('CL', { instance: { key: KEY }, goods, requestId }));
    expect((viaFetch as { value: LogAnswer }).value.via).toBe('fetch');
    await expect
      .poll(async () => (await events('CL')).items.filter((e: any) => e.requestId === requestId).length)
      .toBe(2);
  });

  it('sends nothing for DI or CL without a requestId, and says so on .error', async () => {
    let requests = 0;
    const counting: FetchLike = (url, init) => {
      requests++;
      return nodeFetch(url, init);
    };
    const client = createClient({ endpoint }, { fetch: counting, sendBeacon: () => ++requests > 0 });
    const goods = [{ code: 'GS-1', name: 'x' }];
    for (const name of ['CL', 'DI'] as const) {
      const r = await outcome(client.call(name, { instance: { key: KEY }, goods, requestId: null }));
      expect(r).toMatchObject({ ok: false, error: { call: name, reason: 'no-request-id' } });
    }
    expect(requests).toBe(0);
  });

  it('reports 4xx with the status and the problem detail, never the key', async () => {
    const client = createClient({ endpoint }, { fetch: nodeFetch });
    const r = await outcome(client.call('searchProducts', { instanceKey: 'not-the-key', queryText: 'x' }));
    expect(r).toMatchObject({ ok: false, error: { reason: 'http', status: 401 } });
    const { message } = (r as { error: CallError }).error;
    expect(message).toMatch(/^HTTP 401: wrong instance key/);
    expect(message).not.toContain('not-the-key');
  });

  it('refuses bad calls before sending: no endpoint, unknown name, missing params, two clicked items', async () => {
    let requests = 0;
    const counting: FetchLike = (url, init) => {
      requests++;
      return nodeFetch(url, init);
    };
    const noEndpoint = createClient({}, { fetch: counting });
    expect(
      await outcome(noEndpoint.call('searchProducts', { instanceKey: KEY, queryText: 'x' })),
    ).toMatchObject({
      ok: false,
      error: { reason: 'config', message: expect.stringContaining('data-endpoint') },
    });
    const client = createClient({ endpoint }, { fetch: counting });
    const bad = [
      client.call('search', {}),
      client.call('searchProducts', { queryText: 'x' } as any),
      client.call('searchProducts', { instanceKey: KEY } as any),
      client.call('DI', { instance: { key: KEY }, goods: [], requestId: 'r' }),
      client.call('CL', {
        instance: { key: KEY },
        goods: [
          { code: 'a', name: 'a' },
          { code: 'b', name: 'b' },
        ],
        requestId: 'r',
      }),
      client.call('CL', { instance: {} as any, goods: [{ code: 'a', name: 'a' }], requestId: 'r' }),
    ];
    for (const call of bad)
      expect(await outcome(call)).toMatchObject({ ok: false, error: { reason: 'invalid' } });
    expect(requests).toBe(0);
    // configure() sets the endpoint later.
    noEndpoint.configure({ endpoint });
    expect((await outcome(noEndpoint.call('searchProducts', { instanceKey: KEY, queryText: 'x' }))).ok).toBe(
      true,
    );
  });
});

describe('client against backends that fail', () => {
  it('reports a fetch that throws at once as a network error', async () => {
    const throwing: FetchLike = () => {
      throw new TypeError('Failed to parse URL');
    };
    const client = createClient({ endpoint: 'http://[bad' }, { fetch: throwing });
    const r = await outcome(client.call('searchProducts', { instanceKey: KEY, queryText: 'x' }));
    expect(r).toMatchObject({
      ok: false,
      error: { reason: 'network', message: expect.stringContaining('Failed to parse URL') },
    });
  });

  it('reports a stopped backend as a network error', async () => {
    const server = createServer();
    const url = await listen(server);
    await new Promise((r) => server.close(r));
    const client = createClient({ endpoint: `${url}/client` }, { fetch: nodeFetch });
    const r = await outcome(client.call('searchProducts', { instanceKey: KEY, queryText: 'x' }));
    expect(r).toMatchObject({ ok: false, error: { reason: 'network' } });
  });

  it('times out a backend that does not answer, once, and drops the late answer', async () => {
    const server = createServer((_req, res) => {
      setTimeout(() => res.end('{"type":"SEARCH","requestId":"r","products":[]}'), 600);
    });
    const url = await listen(server);
    try {
      const client = createClient({ endpoint: url, timeoutMs: 150 }, { fetch: nodeFetch });
      const seen: string[] = [];
      const call = client.call('searchProducts', { instanceKey: KEY, queryText: 'x' });
      call.success(() => seen.push('success')).error((e) => seen.push(e.reason));
      const r = await outcome(call);
      expect(r).toMatchObject({
        ok: false,
        error: { reason: 'timeout', message: 'no answer within 150 ms' },
      });
      await new Promise((res) => setTimeout(res, 700));
      expect(seen).toEqual(['timeout']);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('reports 5xx as http and a 200 that is not a search answer as bad-answer', async () => {
    let status = 503;
    const server = createServer((_req, res) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? '{"hello":1}' : '{"detail":"down for the night"}');
    });
    const url = await listen(server);
    try {
      const client = createClient({ endpoint: url }, { fetch: nodeFetch });
      expect(
        await outcome(client.call('searchProducts', { instanceKey: KEY, queryText: 'x' })),
      ).toMatchObject({
        ok: false,
        error: { reason: 'http', status: 503, message: 'HTTP 503: down for the night' },
      });
      status = 200;
      expect(
        await outcome(client.call('searchProducts', { instanceKey: KEY, queryText: 'x' })),
      ).toMatchObject({
        ok: false,
        error: { reason: 'bad-answer' },
      });
    } finally {
      server.close();
    }
  });
});
