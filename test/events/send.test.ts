import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { allExamples, exampleFor } from '../../src/events/examples.js';
import { kindByType } from '../../src/events/kinds.js';
import { type EventToSend, sendEvents } from '../../src/events/send.js';
import { UndiciSender } from '../../src/http/sender.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { memoryLogger } from '../../src/shared/logger.js';

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Handler = (seen: Seen, n: number, res: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function scripted(handler: Handler): Promise<{ url: string; seen: Seen[]; maxInFlight: () => number }> {
  const seen: Seen[] = [];
  let inFlight = 0;
  let max = 0;
  const server = createServer((req, res) => {
    inFlight++;
    max = Math.max(max, inFlight);
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const s = { path: req.url ?? '', headers: req.headers, body };
      seen.push(s);
      res.on('finish', () => inFlight--);
      handler(s, seen.length, res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, maxInFlight: () => max };
}

function poster(url: string, key = 'svc-test-key') {
  return new UndiciSender({
    apiUrl: url,
    connections: 4,
    timeoutMs: 5000,
    userAgent: 'genser/test',
    keyHeader: 'serviceKey',
    key,
  });
}

async function* eventsOf(types: string[]): AsyncGenerator<EventToSend> {
  let row = 0;
  for (const type of types) {
    row++;
    yield {
      file: 'events.ndjson',
      row,
      line: row,
      kind: kindByType(type)!,
      body: JSON.stringify(exampleFor(type)),
    };
  }
}

const fast = { concurrency: 2, retries: 5, backoff: { baseMs: 1, capMs: 5, retryAfterCapMs: 50 } };

describe('sendEvents', () => {
  it('retries 503, 503 then delivers once, repeating body and Idempotency-Key with a fresh requestId', async () => {
    const server = await scripted((_s, n, res) => {
      res.statusCode = n <= 2 ? 503 : 200;
      res.end();
    });
    const p = poster(server.url);
    const log = memoryLogger();
    const result = await sendEvents(eventsOf(['view_product']), fast, { poster: p, log });
    await p.close();
    expect(result).toMatchObject({ sent: 1, accepted: 1, failed: 0, retries: 2 });
    expect(server.seen).toHaveLength(3);
    expect(server.seen.map((s) => s.path)).toEqual(Array(3).fill('/actions/view/product'));
    const keys = new Set(server.seen.map((s) => s.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(new Set(server.seen.map((s) => s.headers.requestid)).size).toBe(3);
    expect(new Set(server.seen.map((s) => s.body)).size).toBe(1);
    expect(server.seen[0].headers.servicekey).toBe('svc-test-key');
    expect(server.seen[0].headers['content-type']).toBe('application/json');
    expect(log.lines.filter((l) => l.includes('retry'))).toEqual([
      expect.stringMatching(
        /^warning: events\.ndjson row 1 \(line 1, view_product\): HTTP 503, retry 1\/5 in /,
      ),
      expect.stringMatching(
        /^warning: events\.ndjson row 1 \(line 1, view_product\): HTTP 503, retry 2\/5 in /,
      ),
    ]);
  });

  it('reports a 400 with the server message and goes on with the next events', async () => {
    const server = await scripted((s, _n, res) => {
      if (s.path === '/actions/cart/add') {
        res.statusCode = 400;
        res.setHeader('content-type', 'application/problem+json');
        res.end(JSON.stringify({ title: 'Invalid event', detail: 'object.orderQuantity must be a number' }));
      } else res.end();
    });
    const p = poster(server.url);
    const result = await sendEvents(eventsOf(['view_product', 'add_to_cart', 'complete_purchase']), fast, {
      poster: p,
      log: memoryLogger(),
    });
    await p.close();
    expect(result).toMatchObject({ sent: 3, accepted: 2, rejected: 1 });
    expect(result.failures).toEqual([
      {
        kind: 'rejected',
        file: 'events.ndjson',
        row: 2,
        line: 2,
        type: 'add_to_cart',
        status: 400,
        message: 'Invalid event: object.orderQuantity must be a number',
      },
    ]);
  });

  it('stops at a 401: no new events after it', async () => {
    const server = await scripted((_s, _n, res) => {
      res.statusCode = 401;
      res.end();
    });
    const p = poster(server.url);
    const result = await sendEvents(
      eventsOf(Array(20).fill('view_product')),
      { ...fast, concurrency: 1 },
      { poster: p, log: memoryLogger() },
    );
    await p.close();
    expect(result.stop?.reason).toBe('auth');
    expect(server.seen).toHaveLength(1);
    // The other 19 are read without sending: each counted once, as not sent.
    expect(result).toMatchObject({ read: 20, sent: 1, failed: 1, notSent: 19, accepted: 0 });
    expect(result.failures.map((f) => [f.row, f.kind])).toEqual([[1, 'failed']]);
    expect(result.unsent).toEqual([{ file: 'events.ndjson', from: 2, to: 20, count: 19 }]);
  });

  it('gives up after the retries and stops sending (unavailable)', async () => {
    const server = await scripted((_s, _n, res) => {
      res.statusCode = 503;
      res.end();
    });
    const p = poster(server.url);
    const result = await sendEvents(
      eventsOf(Array(5).fill('view_product')),
      { ...fast, concurrency: 1, retries: 2 },
      { poster: p, log: memoryLogger() },
    );
    await p.close();
    expect(result.stop?.reason).toBe('unavailable');
    expect(result.failures[0]).toMatchObject({ kind: 'failed', status: 503, row: 1 });
    expect(server.seen).toHaveLength(3);
  });

  it('never has more requests in flight than the concurrency', async () => {
    const server = await scripted((_s, _n, res) => {
      setTimeout(() => res.end(), 20);
    });
    const p = poster(server.url);
    const result = await sendEvents(
      eventsOf(Array(12).fill('view_product')),
      { ...fast, concurrency: 3 },
      { poster: p, log: memoryLogger() },
    );
    await p.close();
    expect(result.accepted).toBe(12);
    expect(server.maxInFlight()).toBe(3);
  });

  it('delivers every kind of example to the sandbox, each stored once', async () => {
    const sandbox = await startSandbox({ port: 0, quiet: true });
    const p = poster(sandbox.url, sandbox.serviceKey);
    try {
      const types = allExamples().map((e) => e.type as string);
      const result = await sendEvents(eventsOf(types), fast, { poster: p, log: memoryLogger() });
      expect(result).toMatchObject({ sent: 11, accepted: 11, failed: 0, rejected: 0 });
      const stats = sandbox.stats() as { events: { total: number; byType: Record<string, number> } };
      expect(stats.events.total).toBe(11);
      for (const t of types) expect(stats.events.byType[t], t).toBe(1);
    } finally {
      await p.close();
      await sandbox.close();
    }
  });

  it('a wrong service key: every event read is accounted for once (failed or not sent), none stored', async () => {
    const sandbox = await startSandbox({ port: 0, quiet: true });
    const p = poster(sandbox.url, 'svc-wrong-key-000');
    try {
      const types = allExamples().map((e) => e.type as string);
      const result = await sendEvents(
        eventsOf(types),
        { ...fast, concurrency: 4 },
        { poster: p, log: memoryLogger() },
      );
      expect(result.stop).toMatchObject({ reason: 'auth' });
      expect(result.stop?.message).toMatch(/^the server refused the service key \(HTTP 401\)/);
      // All 11 read (#31 item 9): the sender starts with two requests on the wire (docs/networks.md),
      // both refused; every other event is not sent, listed as such or in the ranges read after the stop.
      expect(types).toHaveLength(11);
      expect(result).toMatchObject({ sent: 2, accepted: 0, failed: 2, unconfirmed: 0, notSent: 9, read: 11 });
      const failed = result.failures.filter((f) => f.kind === 'failed').map((f) => f.row);
      expect(failed).toEqual([1, 2]);
      const notSent = result.failures.filter((f) => f.kind === 'not_sent').map((f) => f.row);
      for (const u of result.unsent) for (let row = u.from; row <= u.to; row++) notSent.push(row);
      expect([...failed, ...notSent].sort((a, b) => a - b)).toEqual(
        Array.from({ length: 11 }, (_, i) => i + 1),
      );
      expect(result.read).toBe(
        result.accepted + result.rejected + result.failed + result.unconfirmed + result.notSent,
      );
      expect(result.readToEnd).toBe(true);
      expect((sandbox.stats() as { events: { total: number } }).events.total).toBe(0);
    } finally {
      await p.close();
      await sandbox.close();
    }
  });

  it('an event stored whose answer was lost is unconfirmed, not failed', async () => {
    const sandbox = await startSandbox({ port: 0, quiet: true, faults: { lostRate: 1, seed: 3 } });
    const p = poster(sandbox.url, sandbox.serviceKey);
    try {
      const result = await sendEvents(
        eventsOf(['view_product', 'add_to_cart']),
        { ...fast, retries: 0 },
        { poster: p, log: memoryLogger() },
      );
      expect(result).toMatchObject({ sent: 2, accepted: 0, failed: 0, unconfirmed: 2, notSent: 0 });
      expect(result.failures[0]).toMatchObject({ kind: 'unconfirmed', status: 500, row: 1 });
      expect((sandbox.stats() as { events: { total: number } }).events.total).toBe(2);
    } finally {
      await p.close();
      await sandbox.close();
    }
  });

  it('a 200 with an HTML page is not the collection host: the run stops (endpoint)', async () => {
    const server = await scripted((_s, _n, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<html><body>Our shop</body></html>');
    });
    const p = poster(server.url);
    const result = await sendEvents(
      eventsOf(['view_product', 'add_to_cart', 'complete_purchase']),
      { ...fast, concurrency: 1 },
      { poster: p, log: memoryLogger() },
    );
    await p.close();
    expect(result.stop).toMatchObject({
      reason: 'endpoint',
      message: `${server.url}/actions/view/product answered HTTP 200 with an HTML page, not the service's answer: the URL is probably wrong`,
    });
    expect(result).toMatchObject({ accepted: 0, failed: 1, notSent: 2 });
    expect(server.seen).toHaveLength(1);
  });

  it('Ctrl-C stops reading: the event waiting is not sent, the rest is not read', async () => {
    const interrupt = new AbortController();
    const server = await scripted((_s, n, res) => {
      if (n === 1) interrupt.abort();
      res.end();
    });
    const p = poster(server.url);
    const result = await sendEvents(
      eventsOf(Array(10).fill('view_product')),
      { ...fast, concurrency: 1 },
      { poster: p, log: memoryLogger(), interrupt: interrupt.signal },
    );
    await p.close();
    expect(result.stop?.reason).toBe('interrupted');
    expect(result.readToEnd).toBe(false);
    expect(result.unsent).toEqual([]);
    expect(result.read).toBe(result.accepted + result.notSent);
    expect(result.read).toBeLessThan(10);
  });
});
