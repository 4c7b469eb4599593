import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { genser as run } from '../helpers/run-cli.js';

/** `genser events backfill` through the real CLI entry (docs/events.md, "Backfill"). */
const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'genser-backfill-cli-'));
const woo = join(root, 'fixtures', 'orders', 'woocommerce-orders.csv');
const shopify = join(root, 'fixtures', 'orders', 'shopify-orders.csv');
const SOURCE = 'https://shop.example.com';
const KEY = 'svc-BACKFILL-5f0e9a7c31';

/** The CLI in this process; its keys are forgotten after each run, as a new process would. */
async function genser(args: string[], env: NodeJS.ProcessEnv = {}) {
  const r = await run(args, env);
  clearSecrets();
  return r;
}

describe('genser events backfill into an embedded sandbox (--sandbox)', () => {
  it('sends each export of fixtures/orders as purchases and cancellations, and says so', async () => {
    const w = await genser([
      'events',
      'backfill',
      woo,
      '--preset',
      'woocommerce',
      '--source',
      SOURCE,
      '--sandbox',
    ]);
    expect(w.code).toBe(0);
    expect(w.stdout).toBe('');
    expect(w.stderr).toContain('backfill: 6 rows, 5 orders: 4 purchases, 2 cancellations, 5 items (9 units)');
    expect(w.stderr).toContain('amounts: KRW 455,000 purchased, 68,000 cancelled');
    expect(w.stderr).toContain('skipped (never paid): 1 order failed');
    expect(w.stderr).toMatch(/events: 6 sent: 6 accepted, 0 rejected; 0 retries/);

    const s = await genser(['events', 'backfill', shopify, '--preset', 'shopify', '--sandbox', '--json'], {
      GENSER_EVENT_SOURCE: SOURCE,
    });
    expect(s.code).toBe(0);
    const doc = JSON.parse(s.stdout);
    expect(doc.summary).toMatchObject({ orders: 4, purchases: 3, cancellations: 1, skipped: { pending: 1 } });
    expect(doc.summary.amounts.USD).toEqual({ purchased: 235, cancelled: 89 });
    expect(doc.sent).toMatchObject({ sent: 4, accepted: 4, rejected: 0, failed: 0 });
    expect(doc.failures).toEqual([]);
  });

  it('--dry-run builds and checks, sends nothing, needs no host or key', async () => {
    const r = await genser([
      'events',
      'backfill',
      woo,
      '--preset',
      'woocommerce',
      '--source',
      SOURCE,
      '--dry-run',
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('dry run: 6 events built and checked, nothing sent');
  });

  it('bad orders: each problem named, the order not sent, exit 1', async () => {
    const file = join(dir, 'orders.csv');
    writeFileSync(
      file,
      'order_id,order_date,status,customer_id,item_sku,item_name,item_quantity,item_total,order_currency\n' +
        '1,2026-11-02 10:00:00,completed,7,A-1,Cable,1,1000,KRW\n' +
        '2,2026-11-02 11:00:00,completed,7,,Case,two,2000,KRW\n',
    );
    const r = await genser([
      'events',
      'backfill',
      file,
      '--preset',
      'woocommerce',
      '--source',
      SOURCE,
      '--sandbox',
    ]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/orders\.csv row 2 \(line 3/);
    expect(r.stderr).toMatch(/not sent: 1 order with 2 problems/);
    expect(r.stderr).toMatch(/events: 1 sent: 1 accepted/);
  });

  it('usage errors exit 2 before anything is read or sent', async () => {
    const noSource = await genser(['events', 'backfill', woo, '--preset', 'woocommerce', '--dry-run']);
    expect(noSource.code).toBe(2);
    expect(noSource.stderr).toMatch(/--source URL/);
    const noMapping = await genser(['events', 'backfill', woo, '--source', SOURCE, '--dry-run']);
    expect(noMapping.code).toBe(2);
    expect(noMapping.stderr).toMatch(/--preset woocommerce\|shopify or --mapping FILE/);
    const rate = await genser(['events', 'backfill', woo, '--preset', 'woocommerce', '--rate', 'fast']);
    expect(rate.code).toBe(2);
    expect(rate.stderr).toMatch(/--rate must be a number of events per second/);
    const keyFlag = await genser([
      'events',
      'backfill',
      woo,
      '--preset',
      'woocommerce',
      '--service-key',
      KEY,
    ]);
    expect(keyFlag.code).toBe(2);
    expect(keyFlag.stderr).toMatch(/--service-key is refused/);
    expect(keyFlag.stderr).not.toContain(KEY);
    const noHost = await genser(['events', 'backfill', woo, '--preset', 'woocommerce', '--source', SOURCE]);
    expect(noHost.code).toBe(2);
    expect(noHost.stderr).toMatch(/no collection host given/);
  });
});

describe('genser events backfill into a running sandbox', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, serviceKey: KEY, log: memoryLogger(), quiet: true });
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('a second run (as after a crash) stores nothing new; the key shows nowhere', async () => {
    const stored = () => (sandbox.stats() as { events: { byType: Record<string, number> } }).events.byType;
    const keyFile = join(dir, 'service-key');
    writeFileSync(keyFile, `${KEY}\n`);
    const args = ['events', 'backfill', woo, '--preset', 'woocommerce', '--source', SOURCE];
    const send = () =>
      genser([...args, '--base-url', sandbox.url, '--service-key-file', keyFile, '--rate', '200', '--json']);
    const first = await send();
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout).sent).toMatchObject({ sent: 6, accepted: 6 });
    expect(stored()).toEqual({ complete_purchase: 4, cancel_purchase: 2 });
    const second = await send();
    expect(second.code).toBe(0);
    expect(stored()).toEqual({ complete_purchase: 4, cancel_purchase: 2 });
    for (const r of [first, second]) expect(r.stdout + r.stderr).not.toContain(KEY);
    // --new-keys opts out: the same orders are stored again.
    const fresh = await genser([...args, '--base-url', sandbox.url, '--new-keys'], {
      GENSER_SERVICE_KEY: KEY,
    });
    expect(fresh.code).toBe(0);
    expect(stored()).toEqual({ complete_purchase: 8, cancel_purchase: 4 });
  });
});
