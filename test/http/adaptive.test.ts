import { describe, expect, it } from 'vitest';
import { AdaptiveLimit } from '../../src/http/adaptive-limit.js';
import { Pacer } from '../../src/http/pacer.js';
import { UndiciSender } from '../../src/http/sender.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { FeedItem } from '../../src/shared/types.js';
import { uploadFeed } from '../../src/upload/engine.js';
import { scriptedServer } from '../upload/servers.js';

/** Sending that adapts (docs/networks.md): the limit's arithmetic, the gate, and a real run. */
describe('AdaptiveLimit (pure)', () => {
  it('starts low and grows by one a clean quick answer, never above max', () => {
    const l = new AdaptiveLimit({ max: 6 });
    expect(l.limit).toBe(2);
    for (let i = 0; i < 10; i++) l.record('clean', 50, l.generation);
    expect(l.limit).toBe(6);
  });

  it('halves on congestion once per cut, then climbs back to just under it and holds', () => {
    const l = new AdaptiveLimit({ max: 64, probeRounds: 4 });
    for (let i = 0; i < 8; i++) l.record('clean', 50, l.generation);
    expect(l.limit).toBe(10);
    const before = l.generation;
    l.record('congested', 5, before);
    expect(l.limit).toBe(5);
    // Others of the same burst, started before the cut, do not cut again.
    l.record('congested', 5, before);
    expect(l.limit).toBe(5);
    for (let i = 0; i < 20; i++) l.record('clean', 50, l.generation);
    expect(l.limit).toBe(9);
    // One more only after probeRounds rounds at that level.
    // 16 of the 9 * 4 clean answers needed came already.
    for (let i = 0; i < 9 * 4 - 16 - 1; i++) l.record('clean', 50, l.generation);
    expect(l.limit).toBe(9);
    l.record('clean', 50, l.generation);
    expect(l.limit).toBe(10);
  });

  it('slow answers and other failures hold it; it never falls under 1', () => {
    const l = new AdaptiveLimit({ max: 8 });
    l.record('clean', 50, 0);
    expect(l.limit).toBe(3);
    l.record('clean', 500, 0);
    l.record('other', 50, 0);
    expect(l.limit).toBe(3);
    for (let i = 0; i < 5; i++) l.record('congested', 50, l.generation);
    expect(l.limit).toBe(1);
  });
});

describe('Pacer', () => {
  it('keeps at most the limit on the wire, and a pause holds every sender', async () => {
    let t = 0;
    const pacer = new Pacer(new AdaptiveLimit({ max: 2, start: 2 }), () => t);
    const signal = new AbortController().signal;
    const a = await pacer.acquire(signal);
    await pacer.acquire(signal);
    let third = false;
    const waiting = pacer.acquire(signal).then((ticket) => {
      third = true;
      return ticket;
    });
    await Promise.resolve();
    expect(third).toBe(false);
    pacer.pause(50);
    pacer.release(a, 'other');
    await new Promise((r) => setTimeout(r, 10));
    expect(third).toBe(false);
    t = 60;
    await new Promise((r) => setTimeout(r, 60));
    expect(third).toBe(true);
    await waiting;
  });

  it('a pause whose timer fires before the clock reaches its end still lets the waiters go', async () => {
    // A clock slower than the timers' (a busy loop's timers fire early by Date.now()): the
    // timer's end comes before the pause's by this clock.
    const start = Date.now();
    const pacer = new Pacer(
      new AdaptiveLimit({ max: 1, start: 1 }),
      () => start + (Date.now() - start) * 0.8,
    );
    const signal = new AbortController().signal;
    const first = await pacer.acquire(signal);
    pacer.pause(100);
    const waiting = pacer.acquire(signal);
    pacer.release(first, 'other');
    const went = await Promise.race([
      waiting.then(() => 'went'),
      new Promise((r) => setTimeout(() => r('stuck'), 2000)),
    ]);
    expect(went).toBe('went');
    // Not before the pause's end by the pacer's clock (100 ms of it: 125 ms of real time).
    expect(Date.now() - start).toBeGreaterThanOrEqual(120);
  });

  it('reports the most requests that were on the wire at once, not the limit it grew to', async () => {
    const pacer = new Pacer(new AdaptiveLimit({ max: 8, start: 8 }));
    const signal = new AbortController().signal;
    const a = await pacer.acquire(signal);
    const b = await pacer.acquire(signal);
    pacer.release(a, 'clean');
    pacer.release(b, 'clean');
    pacer.release(await pacer.acquire(signal), 'clean');
    expect(pacer.reached).toEqual({ reached: 2, max: 8 });
  });

  it('a waiting request does not go once the run stopped', async () => {
    const pacer = new Pacer(new AdaptiveLimit({ max: 1, start: 1 }));
    const stop = new AbortController();
    const t = await pacer.acquire(stop.signal);
    const waiting = pacer.acquire(stop.signal);
    stop.abort();
    await expect(waiting).rejects.toBeDefined();
    pacer.release(t, 'clean');
  });
});

describe('an upload against a host that refuses more than K requests at once', () => {
  it('adapts: no row fails, nothing is sent twice, the concurrency reached is reported', async () => {
    const K = 3;
    let inFlight = 0;
    const seen = new Map<string, number>();
    const server = await scriptedServer(async (req, res) => {
      if (inFlight >= K) {
        res.writeHead(429, { 'content-type': 'application/json' });
        res.end('{}');
        return;
      }
      inFlight++;
      await new Promise((r) => setTimeout(r, 20));
      inFlight--;
      for (const p of JSON.parse(req.body)['@graph'] as { sku: string }[])
        seen.set(p.sku, (seen.get(p.sku) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const poster = new UndiciSender({
      apiUrl: server.url,
      connections: 8,
      timeoutMs: 5000,
      userAgent: 't',
      keyHeader: 'apiKey',
      key: 'k-123456789',
    });
    try {
      const rows = 400;
      async function* items(): AsyncIterable<FeedItem> {
        for (let row = 1; row <= rows; row++)
          yield {
            file: 'c.csv',
            row,
            line: row + 1,
            sku: `S-${row}`,
            valid: true,
            issues: [],
            payload: { '@type': 'Product', sku: `S-${row}` },
          };
      }
      const settings = {
        format: 'standard' as const,
        path: '/collectors/products',
        batchSize: 5,
        maxBatchBytes: 5 * 1024 * 1024,
        concurrency: 8,
        retries: 8,
        backoff: { baseMs: 5, capMs: 20, retryAfterCapMs: 10_000 },
        type: 'create_product' as const,
        agentName: 't',
        dryRun: false,
        maxErrors: 20,
        graceMs: 500,
      };
      const result = await uploadFeed(items(), settings, { poster, log: memoryLogger() });
      expect(result.summary.failed + result.summary.unconfirmed + result.summary.notSent).toBe(0);
      expect(result.summary.accepted).toBe(rows);
      expect([...seen.values()].every((n) => n === 1)).toBe(true);
      expect(result.summary.concurrency?.max).toBe(8);
      expect(result.summary.concurrency?.reached).toBeGreaterThanOrEqual(K);
      expect(result.summary.concurrency?.reached).toBeLessThanOrEqual(8);
    } finally {
      await poster.close();
      await server.close();
    }
  });
});

describe('a Retry-After', () => {
  it('pauses every sender to the host, not only the one that got it', async () => {
    const starts: number[] = [];
    let first = 0;
    const server = await scriptedServer(async (_req, res) => {
      starts.push(Date.now());
      if (starts.length === 1) {
        first = Date.now();
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end('{}');
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const poster = new UndiciSender({
      apiUrl: server.url,
      connections: 4,
      timeoutMs: 5000,
      userAgent: 't',
      keyHeader: 'apiKey',
      key: 'k-123456789',
    });
    try {
      async function* items(): AsyncIterable<FeedItem> {
        for (let row = 1; row <= 40; row++)
          yield {
            file: 'c.csv',
            row,
            line: row + 1,
            sku: `S-${row}`,
            valid: true,
            issues: [],
            payload: { sku: `S-${row}` },
          };
      }
      const result = await uploadFeed(
        items(),
        {
          format: 'standard',
          path: '/collectors/products',
          batchSize: 5,
          maxBatchBytes: 5 * 1024 * 1024,
          concurrency: 4,
          retries: 3,
          backoff: { baseMs: 5, capMs: 20, retryAfterCapMs: 10_000 },
          type: 'create_product',
          agentName: 't',
          dryRun: false,
          maxErrors: 20,
          graceMs: 500,
        },
        { poster, log: memoryLogger() },
      );
      expect(result.summary.accepted).toBe(40);
      // Two go at first (the sender starts at 2); after the 429, none starts within its second.
      const later = starts.slice(2);
      expect(later.length).toBeGreaterThan(0);
      expect(Math.min(...later) - first).toBeGreaterThanOrEqual(950);
    } finally {
      await poster.close();
      await server.close();
    }
  });
});
