import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nextDailyBatch } from '../../src/time/zones.js';
import {
  envelope,
  event,
  get,
  legacyProduct,
  postEvent,
  postLegacy,
  postStandard,
  product,
  send,
  start,
} from './helpers.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('next daily batch (pure)', () => {
  it('is 00:15 Seoul time, strictly after now', () => {
    expect(nextDailyBatch(new Date('2026-11-23T09:00:00Z'), 'Asia/Seoul').toISOString()).toBe(
      '2026-11-23T15:15:00.000Z',
    );
    // exactly at 00:15 the next one is a day later
    expect(nextDailyBatch(new Date('2026-11-23T15:15:00Z'), 'Asia/Seoul').toISOString()).toBe(
      '2026-11-24T15:15:00.000Z',
    );
  });
  it('follows New York across both DST changes', () => {
    // 2026-03-08 spring forward: before it 00:15 is UTC-5, after it UTC-4
    expect(nextDailyBatch(new Date('2026-03-07T12:00:00Z'), 'America/New_York').toISOString()).toBe(
      '2026-03-08T05:15:00.000Z',
    );
    expect(nextDailyBatch(new Date('2026-03-08T12:00:00Z'), 'America/New_York').toISOString()).toBe(
      '2026-03-09T04:15:00.000Z',
    );
    // 2026-11-01 fall back
    expect(nextDailyBatch(new Date('2026-10-31T12:00:00Z'), 'America/New_York').toISOString()).toBe(
      '2026-11-01T04:15:00.000Z',
    );
    expect(nextDailyBatch(new Date('2026-11-01T12:00:00Z'), 'America/New_York').toISOString()).toBe(
      '2026-11-02T05:15:00.000Z',
    );
  });
});

describe('the daily batch in the sandbox', () => {
  it('reports the next batch of its country in stats (DST-correct for US)', async () => {
    const sb = await start({ country: 'US', now: () => new Date('2026-03-08T12:00:00Z') });
    try {
      const stats = await get(sb.url, '/_sandbox/stats');
      expect(stats).toMatchObject({ timeZone: 'America/New_York', nextBatchAt: '2026-03-09T04:15:00.000Z' });
    } finally {
      await sb.close();
    }
  });

  it('POST /_sandbox/batch flips pending to applied and mails the admin', async () => {
    const sb = await start({ adminEmail: 'ops@shop.example', now: () => new Date('2026-11-23T15:15:00Z') });
    try {
      await postStandard(sb.url, envelope([product('P-1'), product('P-2')]));
      await postLegacy(sb.url, [legacyProduct('P-1')]);
      await postEvent(sb.url, 'view_product', event('view_product'));
      const res = await send(sb.url, '/_sandbox/batch', {});
      expect(res.json()).toEqual({ applied: 3 });
      const p = await get(sb.url, '/_sandbox/products/P-2');
      expect(p).toMatchObject({ status: 'applied', appliedAt: '2026-11-23T15:15:00.000Z' });
      expect(p.applied.sku).toBe('P-2');
      expect((await get(sb.url, '/_sandbox/products?status=pending')).total).toBe(0);
      const outbox = await get(sb.url, '/_sandbox/outbox');
      expect(outbox.items).toHaveLength(1);
      expect(outbox.items[0]).toMatchObject({ to: 'ops@shop.example', applied: 3 });
      expect(outbox.items[0].subject).toMatch(/3 products applied/);
      expect(outbox.items[0].body).toMatch(/2026-11-24 00:15 \(Asia\/Seoul\)/);
      // a second batch with nothing pending still sends its notice
      expect((await sb.runBatch()).applied).toBe(0);
      expect((await get(sb.url, '/_sandbox/outbox')).items).toHaveLength(2);
      expect((await get(sb.url, '/_sandbox/stats')).lastBatchAt).toBe('2026-11-23T15:15:00.000Z');
    } finally {
      await sb.close();
    }
  });

  it('runs by itself when 00:15 local time comes (timer driven by the clock)', async () => {
    // Put the sandbox's clock 300 ms before 00:15 Seoul time, ticking in real time.
    const offset = Date.parse('2026-11-23T15:14:59.700Z') - Date.now();
    const sb = await start({ now: () => new Date(Date.now() + offset) });
    try {
      await postStandard(sb.url, envelope([product('T-1')]));
      await new Promise((r) => setTimeout(r, 700));
      const p = await get(sb.url, '/_sandbox/products/T-1');
      expect(p.status).toBe('applied');
      expect((await get(sb.url, '/_sandbox/outbox')).items).toHaveLength(1);
      expect((await get(sb.url, '/_sandbox/stats')).nextBatchAt).toBe('2026-11-24T15:15:00.000Z');
    } finally {
      await sb.close();
    }
  });
});

describe('restart on the same database file', () => {
  it('keeps products, events, keys seen and the outbox', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-sandbox-'));
    dirs.push(dir);
    const db = join(dir, 'sandbox.db');
    const clock = { t: Date.parse('2026-11-23T03:00:00Z') };
    const now = () => new Date(clock.t);
    const first = await start({ db, now });
    const body = envelope([product('R-1')]);
    await postStandard(first.url, body);
    await postEvent(first.url, 'add_to_cart', event('add_to_cart'));
    await first.runBatch();
    await postStandard(first.url, envelope([product('R-2')]));
    await first.close();

    const second = await start({ db, now });
    try {
      expect(await get(second.url, '/_sandbox/products/R-1')).toMatchObject({
        status: 'applied',
        receivedCount: 1,
      });
      expect(await get(second.url, '/_sandbox/products/R-2')).toMatchObject({ status: 'pending' });
      expect((await get(second.url, '/_sandbox/events?type=add_to_cart')).total).toBe(1);
      expect((await get(second.url, '/_sandbox/outbox')).items).toHaveLength(1);
      // the envelope id is remembered across the restart: applied once
      expect((await postStandard(second.url, body)).headers.get('idempotent-replayed')).toBe('true');
    } finally {
      await second.close();
    }

    // Down over 00:15 Seoul: the missed batch runs at start.
    clock.t = Date.parse('2026-11-24T01:00:00Z');
    const third = await start({ db, now });
    try {
      expect(await get(third.url, '/_sandbox/products/R-2')).toMatchObject({ status: 'applied' });
      expect((await get(third.url, '/_sandbox/outbox')).items).toHaveLength(2);
    } finally {
      await third.close();
    }
  });
});
