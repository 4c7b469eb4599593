import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backfillEvents, emptySummary } from '../../src/events/backfill.js';
import { loadOrderMapping } from '../../src/events/backfill-mapping.js';
import { rateLimited, runBackfill } from '../../src/events/backfill-run.js';
import type { CheckedEvent } from '../../src/events/source.js';
import { UndiciSender } from '../../src/http/sender.js';
import { readFeed } from '../../src/read/index.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { messageWithHint } from '../../src/shared/issue-collector.js';
import { memoryLogger } from '../../src/shared/logger.js';

const root = join(import.meta.dirname, '..', '..');
const woo = join(root, 'fixtures', 'orders', 'woocommerce-orders.csv');
const shopify = join(root, 'fixtures', 'orders', 'shopify-orders.csv');
const dir = mkdtempSync(join(tmpdir(), 'genser-backfill-'));
const SOURCE = 'https://shop.example.com';

async function build(file: string, preset?: string, mappingFile?: string) {
  const mapping = loadOrderMapping({ preset, mapping: mappingFile });
  const summary = emptySummary();
  const out: CheckedEvent[] = [];
  const items = readFeed(file, { encoding: 'auto' }, memoryLogger());
  for await (const c of backfillEvents(items, { mapping, source: SOURCE }, summary)) out.push(c);
  const events = out.flatMap((c) =>
    c.kind === 'event' ? [{ ...c.send, event: JSON.parse(c.send.body) }] : [],
  );
  const problems = out.flatMap((c) => (c.kind === 'problem' ? [c.problem] : []));
  return { summary, events, problems };
}

describe('backfill from a WooCommerce order export', () => {
  it('makes one complete_purchase per paid order at its own (Seoul) time, and a cancel for refunded or cancelled ones', async () => {
    const { summary, events, problems } = await build(woo, 'woocommerce');
    expect(problems).toEqual([]);
    expect(events.map((e) => [e.kind.type, e.row, e.event.time])).toEqual([
      ['complete_purchase', 1, '2026-11-02T05:05:11.000Z'],
      ['complete_purchase', 3, '2026-11-03T00:30:00.000Z'],
      ['complete_purchase', 4, '2026-11-03T12:12:45.000Z'],
      ['cancel_purchase', 4, '2026-11-03T12:12:45.000Z'],
      ['complete_purchase', 6, '2026-11-04T09:44:30.000Z'],
      ['cancel_purchase', 6, '2026-11-04T09:44:30.000Z'],
    ]);
    const first = events[0].event;
    expect(first.data.object).toEqual([
      {
        '@type': 'OrderItem',
        orderedItem: {
          '@type': 'Product',
          sku: 'A-1001',
          name: '무선 이어폰',
          offers: { '@type': 'Offer', price: 129000, priceCurrency: 'KRW' },
        },
        orderQuantity: 2,
      },
      {
        '@type': 'OrderItem',
        orderedItem: {
          '@type': 'Product',
          sku: 'A-1002',
          name: '충전 케이스',
          offers: { '@type': 'Offer', price: 0, priceCurrency: 'KRW' },
        },
        orderQuantity: 1,
      },
    ]);
    expect(first.data.agent.identifier.map((i: { value: string }) => i.value)).toEqual(['17', '17', '']);
    expect(first.source).toBe(SOURCE);
    expect(summary).toEqual({
      rows: 6,
      orders: 5,
      purchases: 4,
      cancellations: 2,
      items: 5,
      quantity: 9,
      amounts: { KRW: { purchased: 455000, cancelled: 68000 } },
      skipped: { failed: 1 },
      invalidOrders: 0,
    });
    // Deterministic keys: the same export gives the same keys; each event its own.
    const again = await build(woo, 'woocommerce');
    expect(again.events.map((e) => e.idempotencyKey)).toEqual(events.map((e) => e.idempotencyKey));
    expect(new Set(events.map((e) => e.idempotencyKey)).size).toBe(6);
  });
});

describe('backfill from a Shopify order export', () => {
  it('groups the line rows of an order (order columns on its first row only) and reads times with offsets', async () => {
    const { summary, events, problems } = await build(shopify, 'shopify');
    expect(problems).toEqual([]);
    expect(events.map((e) => [e.kind.type, e.row, e.event.time, e.event.data.object.length])).toEqual([
      ['complete_purchase', 1, '2026-11-02T15:15:20.000Z', 2],
      ['complete_purchase', 3, '2026-11-02T17:00:58.000Z', 1],
      ['cancel_purchase', 3, '2026-11-04T14:30:00.000Z', 1],
      ['complete_purchase', 5, '2026-11-05T12:19:59.000Z', 1],
    ]);
    expect(events[0].event.data.object[1].orderedItem).toMatchObject({
      sku: 'RS-3P',
      offers: { price: 16, priceCurrency: 'USD' },
    });
    expect(summary).toMatchObject({
      orders: 4,
      purchases: 3,
      cancellations: 1,
      amounts: { USD: { purchased: 235, cancelled: 89 } },
      skipped: { pending: 1 },
    });
  });
});

describe('backfill problems', () => {
  it('does not send an order with a bad row, and names row, column and order', async () => {
    const file = join(dir, 'bad.csv');
    writeFileSync(
      file,
      [
        'Order No,Ordered,Member,Code,Product,Unit price,Qty,Cur',
        'A1,2026-11-02 10:00,m1,S1,Shirt,10,1,EUR',
        'A2,2026-11-02 11:00,m2,S2,Hat,5,two,EUR',
        'A2,2026-11-02 11:00,m2,S3,Scarf,7,1,EUR',
        'A3,2026-11-02 12:00,m3,S1,Shirt,10,1,EUR',
        'A1,2026-11-02 10:00,m1,S4,Belt,3,1,EUR',
      ].join('\n'),
    );
    const mapping = join(dir, 'orders.json');
    writeFileSync(
      mapping,
      JSON.stringify({
        country: 'DE',
        fields: {
          order_id: 'Order No',
          time: 'Ordered',
          member_id: 'Member',
          sku: 'Code',
          name: 'Product',
          price: 'Unit price',
          quantity: 'Qty',
          currency: { column: 'Cur' },
        },
      }),
    );
    const { summary, events, problems } = await build(file, undefined, mapping);
    expect(events.map((e) => e.event.data.object[0].orderedItem.sku)).toEqual(['S1', 'S1']);
    expect(events[0].event.time).toBe('2026-11-02T09:00:00.000Z');
    expect(problems.map((p) => [p.row, p.line, p.column ?? p.field, messageWithHint(p)])).toEqual([
      [2, 3, 'Qty', 'must be a number; got `two`'],
      [
        5,
        6,
        'Order No',
        "belongs to order A1, whose rows ended earlier in the file; sort the export by order so that each order's rows are together",
      ],
    ]);
    expect(summary).toMatchObject({ orders: 3, purchases: 2, invalidOrders: 1 });
  });

  it('refuses a mapping without the columns it needs, and an unknown preset', () => {
    const mapping = join(dir, 'thin.json');
    writeFileSync(mapping, JSON.stringify({ fields: { order_id: 'id', time: 'at' } }));
    expect(() => loadOrderMapping({ mapping })).toThrow(/no column for sku, name, quantity, price, user_id/);
    expect(() => loadOrderMapping({ preset: 'magento' })).toThrow(/unknown order export preset "magento"/);
    // Without either, the columns come from the export's header (canonical order columns).
    expect(loadOrderMapping({})).toMatchObject({ canonical: true, columns: {} });
  });
});

describe('canonical order columns: an export whose header uses them needs no mapping', () => {
  const orders = (name: string, text: string) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  };

  it('reads the plain names', async () => {
    const file = orders(
      'plain.csv',
      'order_id,ordered_at,member_id,sku,name,price,currency,quantity,status\n' +
        'O-1,2026-11-02 14:05:11,m-17,A-1001,무선 이어폰,129000,KRW,2,paid\n' +
        'O-1,2026-11-02 14:05:11,m-17,A-1002,충전 케이스,19000,KRW,1,paid\n' +
        'O-2,2026-11-03 09:30:00,m-18,A-1001,무선 이어폰,129000,KRW,1,refunded\n',
    );
    const { summary, events, problems } = await build(file);
    expect(problems).toEqual([]);
    expect(events.map((e) => [e.kind.type, e.row, e.event.time])).toEqual([
      ['complete_purchase', 1, '2026-11-02T05:05:11.000Z'],
      ['complete_purchase', 3, '2026-11-03T00:30:00.000Z'],
      ['cancel_purchase', 3, '2026-11-03T00:30:00.000Z'],
    ]);
    expect(events[0].event.data.agent.identifier.map((i: { value: string }) => i.value)).toEqual([
      'm-17',
      'm-17',
      '',
    ]);
    expect(summary).toMatchObject({ rows: 3, orders: 2, purchases: 2, items: 3, quantity: 4 });
  });

  it('reads the usual spellings, in any case: order_date, created_at, customer_id, qty', async () => {
    const file = orders(
      'spellings.csv',
      'Order_ID,Created_At,Customer_ID,SKU,Name,Price,Currency,Qty\n' +
        'O-9,2026-11-02T05:05:11Z,17,A-1,Tee,10,USD,3\n',
    );
    const { events, problems } = await build(file);
    expect(problems).toEqual([]);
    expect(events[0].event.data.object[0]).toMatchObject({ orderQuantity: 3 });
    const dated = orders(
      'dated.csv',
      'order_id,order_date,customer_id,sku,name,price,currency,qty\nO-1,2026-11-02,17,A,T,1,KRW,1\n',
    );
    expect((await build(dated)).events).toHaveLength(1);
  });

  it('names the columns it lacks with their spellings', async () => {
    const file = orders('thin.csv', 'order_id,sku,name\nO-1,A,T\n');
    await expect(build(file)).rejects.toThrow(
      /thin\.csv \(canonical order columns\): no column for time, quantity, price, user_id/,
    );
    await expect(build(file)).rejects.toMatchObject({
      hint: expect.stringContaining('ordered_at/order_date/created_at, quantity/qty'),
    });
  });
});

describe('rateLimited', () => {
  it('spaces items evenly from the first', async () => {
    let clock = 1000;
    const waits: number[] = [];
    const sleep = async (ms: number) => {
      waits.push(ms);
      clock += ms;
    };
    async function* five() {
      for (let i = 0; i < 5; i++) yield i;
    }
    const got: number[] = [];
    for await (const i of rateLimited(five(), 4, { now: () => clock, sleep })) got.push(i);
    expect(got).toEqual([0, 1, 2, 3, 4]);
    expect(waits).toEqual([250, 250, 250, 250]);
  });
});

describe('backfill against the sandbox', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, serviceKey: 'svc-backfill', log: memoryLogger(), quiet: true });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('a second run (as after a crash) stores nothing twice', async () => {
    const stored = () => (sandbox.stats() as { events: { byType: Record<string, number> } }).events.byType;
    const run = async () => {
      const poster = new UndiciSender({
        apiUrl: sandbox.url,
        connections: 2,
        timeoutMs: 5000,
        userAgent: 'genser/test',
        keyHeader: 'serviceKey',
        key: 'svc-backfill',
      });
      try {
        return await runBackfill(
          woo,
          {
            mapping: loadOrderMapping({ preset: 'woocommerce' }),
            source: SOURCE,
            read: { encoding: 'auto' },
            rate: 200,
            send: { concurrency: 2, retries: 1, backoff: { baseMs: 1, capMs: 5, retryAfterCapMs: 50 } },
          },
          { poster, log: memoryLogger() },
        );
      } finally {
        await poster.close();
      }
    };
    const first = await run();
    expect(first.sent).toMatchObject({ sent: 6, accepted: 6, rejected: 0, failed: 0 });
    expect(stored()).toEqual({ complete_purchase: 4, cancel_purchase: 2 });
    const second = await run();
    expect(second.sent).toMatchObject({ sent: 6, accepted: 6 });
    expect(stored()).toEqual({ complete_purchase: 4, cancel_purchase: 2 });
  });

  it('keys hold: the order id makes them, not how --source or --country is spelled (#28)', async () => {
    const purchases = () =>
      (sandbox.stats() as { events: { byType: Record<string, number> } }).events.byType.complete_purchase ??
      0;
    const before = purchases();
    // Two orders by one customer in the same second with the same item: two purchases.
    const file = join(dir, 'twins.csv');
    writeFileSync(
      file,
      'order_id,ordered_at,customer_id,sku,name,price,currency,quantity\n' +
        'T-1,2026-11-02 14:05:11,17,A-1,Tee,10,KRW,1\n' +
        'T-2,2026-11-02 14:05:11,17,A-1,Tee,10,KRW,1\n',
    );
    const run = async (source: string, country?: string) => {
      const poster = new UndiciSender({
        apiUrl: sandbox.url,
        connections: 2,
        timeoutMs: 5000,
        userAgent: 'genser/test',
        keyHeader: 'serviceKey',
        key: 'svc-backfill',
      });
      try {
        return await runBackfill(
          file,
          {
            mapping: loadOrderMapping({ country }),
            source,
            read: { encoding: 'auto' },
            send: { concurrency: 2, retries: 0, backoff: { baseMs: 1, capMs: 5, retryAfterCapMs: 50 } },
          },
          { poster, log: memoryLogger() },
        );
      } finally {
        await poster.close();
      }
    };
    const first = await run(SOURCE);
    expect(first.sent).toMatchObject({ sent: 2, accepted: 2 });
    expect(purchases() - before).toBe(2);
    // The same orders again, the site address with a slash and another country (so another
    // time): the same keys, so nothing is stored again; the service refuses the changed bodies.
    const again = await run(`${SOURCE}/`, 'JP');
    expect(again.sent).toMatchObject({ sent: 2, accepted: 0 });
    expect(purchases() - before).toBe(2);
    // The same spelling again: a replay of each, accepted, nothing new.
    expect((await run(SOURCE)).sent).toMatchObject({ sent: 2, accepted: 2 });
    expect(purchases() - before).toBe(2);
  });

  it('needs the site address', async () => {
    await expect(
      runBackfill(
        woo,
        {
          mapping: loadOrderMapping({ preset: 'woocommerce' }),
          read: { encoding: 'auto' },
          send: { concurrency: 1, retries: 0, backoff: { baseMs: 1, capMs: 1, retryAfterCapMs: 1 } },
          dryRun: true,
        },
        { poster: undefined as never, log: memoryLogger() },
      ),
    ).rejects.toThrow(/need the site they come from/);
  });
});
