import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { workerFromSource } from '../helpers/workers.js';
import { envelope, get, legacyProduct, postLegacy, postStandard, product, send, start } from './helpers.js';

/**
 * The sandbox's answer to an envelope whose type does not match what it holds (docs/sandbox.md,
 * "Create and update"): applied as an upsert (200), counted in /_sandbox/stats and listed on the
 * product.
 */
const typed = (type: string, skus: string[], over: Record<string, unknown> = {}) => ({
  ...envelope(skus.map((s) => product(s, over))),
  type,
});

describe('create_product and update_product against what the sandbox holds', () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await start({ quiet: true });
  });
  afterAll(async () => {
    await sb.close();
  });
  beforeEach(async () => {
    await send(sb.url, '/_sandbox/reset', {});
  });

  it('applies an update of a SKU never stored as a create, and notes it', async () => {
    const res = await postStandard(sb.url, typed('update_product', ['U-1']));
    expect(res.status).toBe(200);
    const view = await get(sb.url, '/_sandbox/products/U-1');
    expect(view.receivedCount).toBe(1);
    expect(view.data.sku).toBe('U-1');
    expect(view.mismatches).toEqual([{ kind: 'update-unknown', count: 1, lastAt: expect.any(String) }]);
    const stats = await get(sb.url, '/_sandbox/stats');
    expect(stats.products.mismatches).toEqual({ 'update-unknown': 1, 'create-known': 0 });
  });

  it('applies a create of a SKU already stored as an update (latest data wins), and notes it', async () => {
    expect((await postStandard(sb.url, typed('create_product', ['C-1']))).status).toBe(200);
    const again = typed('create_product', ['C-1'], { url: 'https://shop.example.com/c-1' });
    expect((await postStandard(sb.url, again)).status).toBe(200);
    const view = await get(sb.url, '/_sandbox/products/C-1');
    expect(view.receivedCount).toBe(2);
    expect(view.data.url).toBe('https://shop.example.com/c-1');
    expect(view.mismatches).toEqual([{ kind: 'create-known', count: 1, lastAt: expect.any(String) }]);
    expect((await get(sb.url, '/_sandbox/stats')).products.mismatches).toEqual({
      'update-unknown': 0,
      'create-known': 1,
    });
  });

  it('notes nothing for matching types, a missing type, or the legacy API', async () => {
    expect((await postStandard(sb.url, typed('create_product', ['M-1', 'M-2']))).status).toBe(200);
    expect((await postStandard(sb.url, typed('update_product', ['M-1']))).status).toBe(200);
    const untyped = envelope([product('M-2')]);
    delete untyped.type;
    expect((await postStandard(sb.url, untyped)).status).toBe(200);
    expect((await postLegacy(sb.url, [legacyProduct('L-1')])).status).toBe(200);
    expect((await postLegacy(sb.url, [legacyProduct('L-1')])).status).toBe(200);
    expect((await get(sb.url, '/_sandbox/products/M-1')).mismatches).toEqual([]);
    expect((await get(sb.url, '/_sandbox/products/M-2')).mismatches).toEqual([]);
    expect((await get(sb.url, '/_sandbox/products/L-1')).mismatches).toEqual([]);
    expect((await get(sb.url, '/_sandbox/stats')).products.mismatches).toEqual({
      'update-unknown': 0,
      'create-known': 0,
    });
  });

  it('counts one mismatch per SKU and request, only for the SKUs that mismatch', async () => {
    await postStandard(sb.url, typed('create_product', ['K-1']));
    // K-1 is known, K-2 is not: only K-2's update mismatches; K-2 named twice counts once.
    expect((await postStandard(sb.url, typed('update_product', ['K-1', 'K-2', 'K-2']))).status).toBe(200);
    await postStandard(sb.url, typed('update_product', ['K-3']));
    expect((await get(sb.url, '/_sandbox/products/K-1')).mismatches).toEqual([]);
    expect((await get(sb.url, '/_sandbox/products/K-2')).mismatches[0].count).toBe(1);
    expect((await get(sb.url, '/_sandbox/stats')).products.mismatches['update-unknown']).toBe(2);
  });

  it('does not note a refused body, nor a replay of the same envelope', async () => {
    const bad = typed('update_product', ['B-1'], { name: undefined });
    expect((await postStandard(sb.url, bad)).status).toBe(400);
    const body = typed('update_product', ['B-2']);
    expect((await postStandard(sb.url, body)).status).toBe(200);
    expect((await postStandard(sb.url, body)).headers.get('idempotent-replayed')).toBe('true');
    expect((await get(sb.url, '/_sandbox/stats')).products.mismatches['update-unknown']).toBe(1);
  });

  it('forgets the mismatches on reset', async () => {
    await postStandard(sb.url, typed('update_product', ['R-1']));
    await send(sb.url, '/_sandbox/reset', {});
    expect((await get(sb.url, '/_sandbox/stats')).products.mismatches['update-unknown']).toBe(0);
  });
});

it('keeps the mismatches in a --db file across a restart', async () => {
  const db = join(mkdtempSync(join(tmpdir(), 'genser-mismatch-')), 'sandbox.db');
  const first = await start({ quiet: true, db });
  await postStandard(first.url, typed('update_product', ['D-1']));
  await first.close();
  const second = await start({ quiet: true, db });
  try {
    expect((await get(second.url, '/_sandbox/products/D-1')).mismatches[0].kind).toBe('update-unknown');
  } finally {
    await second.close();
  }
});

it('notes mismatches the same way when the body is checked on the ingest worker', async () => {
  const url = await workerFromSource('sandbox/ingest-worker.ts');
  const sb = await start({ quiet: true, ingest: { minBytes: 0, url } });
  try {
    expect((await postStandard(sb.url, typed('update_product', ['W-1']))).status).toBe(200);
    expect((await get(sb.url, '/_sandbox/products/W-1')).mismatches[0].kind).toBe('update-unknown');
  } finally {
    await sb.close();
  }
});
