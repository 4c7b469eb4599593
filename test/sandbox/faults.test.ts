import { describe, expect, it } from 'vitest';
import { Faults, parseLatency } from '../../src/sandbox/faults.js';
import { seededRandom } from '../../src/sandbox/random.js';
import { envelope, event, eventHeaders, get, postEvent, postStandard, product, start } from './helpers.js';

async function statuses(options: Parameters<typeof start>[0], n: number): Promise<number[]> {
  const sb = await start(options);
  try {
    const out: number[] = [];
    for (let i = 0; i < n; i++) {
      try {
        out.push((await postEvent(sb.url, 'view_product', event('view_product'))).status);
      } catch {
        out.push(0); // connection dropped
      }
    }
    return out;
  } finally {
    await sb.close();
  }
}

describe('fault flags', () => {
  it('--fail-rate answers 503 (or --fail-status 500) and stores nothing', async () => {
    const sb = await start({ faults: { failRate: 1 } });
    try {
      const res = await postEvent(sb.url, 'view_product', event('view_product'));
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/problem\+json/);
      expect((await get(sb.url, '/_sandbox/stats')).events.total).toBe(0);
      // the admin API is never faulted
      expect((await get(sb.url, '/_sandbox/health')).ok).toBe(true);
    } finally {
      await sb.close();
    }
    expect(await statuses({ faults: { failRate: 1, failStatus: 500 } }, 2)).toEqual([500, 500]);
  });

  it('--seed makes a partial fail rate repeatable', async () => {
    const a = await statuses({ faults: { failRate: 0.5, seed: 42 } }, 24);
    const b = await statuses({ faults: { failRate: 0.5, seed: 42 } }, 24);
    expect(a).toEqual(b);
    expect(a).toContain(200);
    expect(a).toContain(503);
  });

  it('--reset-rate drops the connection without an answer', async () => {
    const sb = await start({ faults: { resetRate: 1 } });
    try {
      await expect(postEvent(sb.url, 'view_product', event('view_product'))).rejects.toThrow();
      expect(sb.lines.some((l) => / reset \d+ms$/.test(l))).toBe(true);
    } finally {
      await sb.close();
    }
  });

  it('--latency delays answers (fixed or a range)', async () => {
    const sb = await start({ faults: { latencyMs: 150 } });
    try {
      const t0 = performance.now();
      expect((await postEvent(sb.url, 'view_product', event('view_product'))).status).toBe(200);
      expect(performance.now() - t0).toBeGreaterThanOrEqual(140);
    } finally {
      await sb.close();
    }
    expect(parseLatency('100-400')).toEqual([100, 400]);
    expect(parseLatency('250')).toBe(250);
    expect(parseLatency('400-100')).toBeUndefined();
    const f = new Faults({ latencyMs: [100, 200], seed: 1 }, () => 0);
    for (let i = 0; i < 20; i++) {
      const d = f.decide();
      expect(d.kind === 'none' && d.latencyMs >= 100 && d.latencyMs <= 200).toBe(true);
    }
  });

  it('--rate-limit answers 429 with Retry-After past N per second', async () => {
    let t = Date.parse('2026-11-23T01:00:00.100Z');
    const sb = await start({ faults: { rateLimit: 3 }, now: () => new Date(t) });
    try {
      const codes: number[] = [];
      for (let i = 0; i < 5; i++)
        codes.push((await postEvent(sb.url, 'view_product', event('view_product'))).status);
      expect(codes).toEqual([200, 200, 200, 429, 429]);
      const limited = await postEvent(sb.url, 'view_product', event('view_product'));
      expect(limited.headers.get('retry-after')).toBe('1');
      t += 1000;
      expect((await postEvent(sb.url, 'view_product', event('view_product'))).status).toBe(200);
    } finally {
      await sb.close();
    }
  });

  it('--lost-rate processes the request, answers 500, and a retry with the same key is replayed', async () => {
    const sb = await start({ faults: { lostRate: 1 } });
    try {
      const headers = eventHeaders();
      const lost = await postEvent(sb.url, 'complete_purchase', event('complete_purchase'), headers);
      expect(lost.status).toBe(500);
      expect((await get(sb.url, '/_sandbox/events?type=complete_purchase')).total).toBe(1);
      const retry = await postEvent(sb.url, 'complete_purchase', event('complete_purchase'), headers);
      expect(retry.status).toBe(200);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect((await get(sb.url, '/_sandbox/events?type=complete_purchase')).total).toBe(1);
      // products: the envelope id plays the same role
      const body = envelope([product('LOST-1')]);
      expect((await postStandard(sb.url, body)).status).toBe(500);
      expect((await postStandard(sb.url, body)).status).toBe(200);
      expect((await get(sb.url, '/_sandbox/products/LOST-1')).receivedCount).toBe(1);
    } finally {
      await sb.close();
    }
  });

  it('the PRNG is deterministic per seed', () => {
    const a = seededRandom(7);
    const b = seededRandom(7);
    const xs = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(xs);
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(seededRandom(8)()).not.toBe(xs[0]);
  });
});

describe('describeFaults', () => {
  it('names the faults that are on, for the start-up banner', async () => {
    const { describeFaults } = await import('../../src/sandbox/faults.js');
    expect(describeFaults({})).toBe('');
    expect(describeFaults({ seed: 3 })).toBe('');
    expect(describeFaults({ failRate: 0.2, latencyMs: [50, 500], lostRate: 0.05, seed: 7 })).toBe(
      'fail-rate 0.2 (503), latency 50-500 ms, lost-rate 0.05, seed 7',
    );
  });
});
