import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { retryRows } from '../../src/nightly/rows.js';
import { priceOfJson } from '../../src/payload/price.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { openDatabase } from '../../src/storage/sqlite.js';
import { genser } from '../helpers/run-cli.js';
import { json, productsOf, type ScriptedServer, scriptedServer } from './servers.js';

/**
 * Every accepted row keeps its payload's price with its SKU (src/upload/state/prices.ts), whatever
 * sent it: the feed, `--missing out-of-stock` (a gone product's last payload), `genser stock`
 * (the last payload with its availability changed), `--retry-failed` (the payload it failed with).
 * A row that kept none (NULL) costs the next run a read of its payload to compare prices.
 */
const root = join(import.meta.dirname, '..', '..');
const FEED = join(root, 'fixtures', 'catalog.csv');
const KEY = 'kept-prices-key-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'genser-kept-prices-'));

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearSecrets();
});

/** The price the state keeps with each accepted SKU (NULL: none kept). */
function keptPrices(state: string): Map<string, number | null> {
  const file = readdirSync(state).find((f) => f.endsWith('.sqlite'))!;
  const db = openDatabase(join(state, file));
  try {
    const rows = db.prepare<{ sku: string; price: number | null }>('SELECT sku, price FROM accepted').all();
    return new Map(rows.map((r) => [r.sku, r.price]));
  } finally {
    db.close();
  }
}

/** As a state migrated from before the prices were kept: none known. */
function forgetPrices(state: string): void {
  const file = readdirSync(state).find((f) => f.endsWith('.sqlite'))!;
  const db = openDatabase(join(state, file));
  try {
    db.prepare('UPDATE accepted SET price = NULL').run();
  } finally {
    db.close();
  }
}

describe('the price kept with each accepted SKU', () => {
  it('is the payload’s for rows sent as gone from the feed and by genser stock', async () => {
    server = await scriptedServer((_req, res) => json(res, 200, {}));
    const state = join(dir, 'state');
    const flags = ['--api-url', server.url, '--state', state];
    const env = { GENSER_API_KEY: KEY };
    expect((await genser(['upload', FEED, ...flags], env)).code).toBe(0);
    const first = keptPrices(state);
    expect(first.size).toBe(25);
    expect(first.get('GS-0001')).toBe(89000);

    // The feed without its last two products: they go out of stock, at their last price.
    forgetPrices(state);
    const lines = readFileSync(FEED, 'utf8').trimEnd().split('\n');
    const shorter = join(dir, 'shorter.csv');
    writeFileSync(shorter, `${lines.slice(0, -2).join('\n')}\n`);
    const gone = await genser(
      ['upload', shorter, '--missing', 'out-of-stock', '--max-change', '100%', ...flags],
      env,
    );
    expect(gone.code).toBe(0);
    const afterGone = keptPrices(state);
    const goneSkus = ['GS-0024', 'GS-0025'];
    for (const sku of goneSkus) expect(afterGone.get(sku), sku).toBe(first.get(sku));
    expect(afterGone.get('GS-0001')).toBeNull();

    // A stock change keeps the price of the payload it changes.
    forgetPrices(state);
    const stock = join(dir, 'stock.csv');
    writeFileSync(stock, 'sku,in_stock\nGS-0001,No\nGS-0002,Yes\n');
    expect((await genser(['stock', stock, ...flags], env)).code).toBe(0);
    const afterStock = keptPrices(state);
    expect(afterStock.get('GS-0001')).toBe(89000);
    expect(afterStock.get('GS-0002')).toBe(first.get('GS-0002'));
    expect(afterStock.get('GS-0003')).toBeNull();
    // What the stock run's body carried: the prices the state kept.
    const sent = productsOf(server.requests.at(-1)!.body);
    expect(sent.map((p) => p.sku)).toEqual(['GS-0001', 'GS-0002']);
    for (const p of sent)
      expect(afterStock.get(p.sku as string)).toBe(priceOfJson(Buffer.from(JSON.stringify(p))));
  });
});

describe('a row owed to --retry-failed', () => {
  it('carries the price of the payload it failed with, not the last accepted one', async () => {
    const owed = (sku: string, offers: unknown) => ({
      file: 'a.csv',
      row: 1,
      line: 2,
      sku,
      payload: Buffer.from(JSON.stringify({ sku, offers })),
      runId: 'run00001',
    });
    const rows = [];
    for await (const r of retryRows([owed('A', { price: 1200 }), owed('B', { price: 'n/a' })])) rows.push(r);
    expect(rows.map((r) => [r.sku, r.price, r.origin])).toEqual([
      ['A', 1200, 'retry'],
      ['B', null, 'retry'],
    ]);
  });
});
