import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KINDS } from '../../src/events/kinds.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { seededRandom } from '../../src/sandbox/random.js';
import { workerFromSource } from '../helpers/workers.js';
import {
  API_KEY,
  envelope,
  event,
  eventHeaders,
  get,
  type Loose,
  postEvent,
  product,
  send,
  start,
} from './helpers.js';

let sb: RunningSandbox & { lines: string[] };
/** The same, with every product body decoded, parsed and validated on the built ingest worker. */
let sbWorker: RunningSandbox & { lines: string[] };
const workerUrl = await workerFromSource('sandbox/ingest-worker.ts');
beforeAll(async () => {
  sb = await start({ maxBodyBytes: 256 * 1024, timeouts: { headersMs: 500, requestMs: 1000 } });
  sbWorker = await start({ maxBodyBytes: 256 * 1024, ingest: { minBytes: 0, url: workerUrl } });
});
afterAll(async () => {
  await sb.close();
  await sbWorker.close();
});

const PATHS = [
  '/collectors/products',
  '/searches/products',
  '/searches/contents',
  '/searches/filters',
  ...EVENT_KINDS.map((k) => k.path),
];

/** Values of every JSON type, nested at random, to be put where the schemas expect others. */
function garbageValue(rand: () => number, depth = 0): unknown {
  const r = rand();
  if (depth > 4 || r < 0.3) {
    const scalars = [null, true, false, 0, -1, 1e308, 'x', '', '\u0000', '😀'.repeat(3), 12.5];
    return scalars[Math.floor(rand() * scalars.length)];
  }
  if (r < 0.6) return Array.from({ length: Math.floor(rand() * 4) }, () => garbageValue(rand, depth + 1));
  const keys = [
    '@graph',
    'sku',
    'code',
    'data',
    'type',
    'agent',
    'object',
    'offers',
    'name',
    '__proto__',
    'constructor',
  ];
  const o: Record<string, unknown> = {};
  for (let i = 0; i < 1 + Math.floor(rand() * 4); i++)
    o[keys[Math.floor(rand() * keys.length)]] = garbageValue(rand, depth + 1);
  return o;
}

/** Take a valid body and break one place in it. */
function mutate(rand: () => number, body: Loose): Loose {
  const copy = structuredClone(body);
  let node = copy;
  for (let i = 0; i < 4 && node && typeof node === 'object'; i++) {
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const k = keys[Math.floor(rand() * keys.length)];
    if (rand() < 0.4 || typeof node[k] !== 'object' || node[k] === null) {
      node[k] = garbageValue(rand);
      return copy;
    }
    node = node[k];
  }
  return garbageValue(rand);
}

function garbageBody(rand: () => number, i: number): string | Uint8Array {
  switch (i % 6) {
    case 0:
      return Uint8Array.from({ length: 1 + Math.floor(rand() * 300) }, () => Math.floor(rand() * 256));
    case 1:
      return JSON.stringify(garbageValue(rand));
    case 2:
      return JSON.stringify(mutate(rand, envelope([product('F-1'), product('F-2')])));
    case 3:
      return JSON.stringify(mutate(rand, event(EVENT_KINDS[i % 11].type)));
    case 4:
      return JSON.stringify(envelope([product('F-3')])).slice(0, Math.floor(rand() * 200));
    default:
      return `${'['.repeat(5000 + Math.floor(rand() * 50_000))}`;
  }
}

describe('robustness', () => {
  it.each([
    ['in-thread', () => sb],
    ['on the ingest worker', () => sbWorker],
  ])(
    'survives a fuzz loop of garbage bodies on every endpoint, answering 4xx, never 5xx (%s)',
    async (_mode, which) => {
      const target = which();
      const rand = seededRandom(20261123);
      const seen = new Set<number>();
      for (let i = 0; i < 300; i++) {
        const path = PATHS[Math.floor(rand() * PATHS.length)];
        const res = await send(target.url, path, garbageBody(rand, i), {
          ...eventHeaders(),
          apiKey: API_KEY,
          'x-api-key': API_KEY,
        });
        seen.add(res.status);
        expect(res.status, `request ${i} to ${path}`).toBeGreaterThanOrEqual(400);
        expect(res.status, `request ${i} to ${path}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
      }
      expect(seen.has(400)).toBe(true);
      // still answering, and valid requests still work
      expect((await get(target.url, '/_sandbox/health')).ok).toBe(true);
      expect((await postEvent(target.url, 'view_product', event('view_product'))).status).toBe(200);
      expect(
        (await send(target.url, '/collectors/products', envelope([product('F-9')]), { apiKey: API_KEY }))
          .status,
      ).toBe(200);
    },
  );

  it('answers 500 when its ingest worker dies, and keeps serving', async () => {
    const dying = await start({
      ingest: { minBytes: 0, url: new URL('./dying-worker.mjs', import.meta.url) },
    });
    try {
      for (let i = 0; i < 2; i++) {
        const res = await send(dying.url, '/collectors/products', envelope([product(`Z-${i}`)]), {
          apiKey: API_KEY,
        });
        expect(res.status).toBe(500);
      }
      expect((await get(dying.url, '/_sandbox/health')).ok).toBe(true);
      // minBytes 0 sends event bodies to the (dying) worker too: a 500, and still serving.
      expect((await postEvent(dying.url, 'view_product', event('view_product'))).status).toBe(500);
      expect((await get(dying.url, '/_sandbox/stats')).products.total).toBe(0);
    } finally {
      await dying.close();
    }
  });

  it('refuses deeply nested valid JSON with a 400, not a crash', async () => {
    const deep = `${'{"a":'.repeat(40_000)}1${'}'.repeat(40_000)}`;
    const res = await send(sb.url, '/actions/view/product', deep, eventHeaders());
    expect(res.status).toBe(400);
    expect(res.json().detail).toMatch(/nested deeper than/);
    // deep nesting hidden in a property the schema leaves open
    const hidden = event('view_product');
    hidden.data.extra = '__DEEP__';
    const text = JSON.stringify(hidden).replace('"__DEEP__"', `${'['.repeat(30_000)}${']'.repeat(30_000)}`);
    expect((await postEvent(sb.url, 'view_product', text)).status).toBe(400);
    // 64 levels are fine (the product schemas need far fewer)
    const ok = event('view_product');
    ok.data.extra = '__DEEP__';
    const okText = JSON.stringify(ok).replace('"__DEEP__"', `${'['.repeat(60)}${']'.repeat(60)}`);
    expect((await postEvent(sb.url, 'view_product', okText)).status).toBe(200);
    // strings full of brackets are not nesting
    const brackets = event('view_product');
    brackets.source = `https://x.example.com/${'[{'.repeat(500)}\\"`;
    expect((await postEvent(sb.url, 'view_product', brackets)).status).toBe(200);
    const deepGraph = JSON.stringify(
      envelope([product('N-1', { category: JSON.parse(`${'['.repeat(2000)}${']'.repeat(2000)}`) })]),
    );
    expect((await send(sb.url, '/collectors/products', deepGraph, { apiKey: API_KEY })).status).toBe(400);
  });

  it('answers 408 to a client that never finishes its headers, and keeps serving', async () => {
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(sb.url).port), '127.0.0.1', () => {
        socket.write('POST /actions/view/product HTTP/1.1\r\nHost: 127.0.0.1\r\n');
      });
      let text = '';
      socket.on('data', (d) => {
        text += d.toString();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
    expect((await get(sb.url, '/_sandbox/health')).ok).toBe(true);
  });

  it('survives clients that vanish mid-body or send their body too slowly', async () => {
    const port = Number(new URL(sb.url).port);
    const head = (len: number) =>
      `POST /collectors/products HTTP/1.1\r\nHost: 127.0.0.1\r\napiKey: ${API_KEY}\r\nContent-Type: application/json\r\nContent-Length: ${len}\r\n\r\n`;
    await new Promise<void>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`${head(100_000)}{"@graph": [`);
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
    });
    const slow = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(`${head(1000)}{"@gr`));
      let text = '';
      socket.on('data', (d) => {
        text += d.toString();
      });
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
    });
    expect(slow).toMatch(/^HTTP\/1\.1 408/);
    expect((await get(sb.url, '/_sandbox/health')).ok).toBe(true);
  });

  it('answers a malformed request line with 400', async () => {
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(Number(new URL(sb.url).port), '127.0.0.1', () => {
        socket.write('\u0001\u0002 garbage\r\n\r\n');
      });
      let text = '';
      socket.on('data', (d) => {
        text += d.toString();
      });
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
  });

  it('serves many concurrent connections', async () => {
    // With the default time limits: `sb` gives a request 1 s to arrive (for the slow-client tests
    // above), which 200 connections at once on a loaded machine exceed, rightly answered 408.
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        i % 2 === 0
          ? postEvent(sbWorker.url, 'search_result', event('search_result'))
          : send(sbWorker.url, '/collectors/products', envelope([product(`CC-${i}`)]), { apiKey: API_KEY }),
      ),
    );
    expect(results.filter((r) => r.status !== 200).map((r) => r.status)).toEqual([]);
    expect(
      (await get(sbWorker.url, '/_sandbox/products?status=pending&format=standard&limit=1')).total,
    ).toBeGreaterThanOrEqual(100);
  });

  it('closes its store only after the requests still being handled, also those whose socket was cut', async () => {
    // Latency longer than close()'s 2 s grace: the connection is cut while the handler waits.
    const slow = await start({ faults: { latencyMs: 2300 } });
    const answer = send(slow.url, '/collectors/products', envelope([product('LATE-1')]), {
      apiKey: API_KEY,
    }).catch((err: Error) => err);
    await new Promise((r) => setTimeout(r, 200));
    await slow.close();
    expect(await answer).toBeInstanceOf(Error);
    // Past the handler's wake-up: it found its store open (closed after it), or, before, closed.
    await new Promise((r) => setTimeout(r, 400));
    // Before: "The database connection is not open" (or, with prepared statements, "statement has
    // been finalized"), and a 500.
    expect(slow.lines.filter((l) => l.startsWith('error:'))).toEqual([]);
  });
});
