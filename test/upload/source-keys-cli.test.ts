import { afterEach, describe, expect, it } from 'vitest';
import { clearSecrets } from '../../src/shared/secrets.js';
import {
  Catalog,
  COLUMNS,
  closeServices,
  converted,
  fresh,
  inProcess,
  KEY,
  type Row,
  type Runner,
  spawned,
  startService,
} from './source-keys-catalog.js';

/**
 * Source keys in nightly uploads (src/feed/source-keys.ts; issue 11, "Unchanged rows") through
 * the real CLI against a server on 127.0.0.1 that keeps the last payload it accepted per SKU.
 * The oracle is `genser convert` of each night's feed: after every night the server holds exactly
 * its payloads, and the SKUs sent that night are exactly those whose payload differs from what the
 * server held. A row skipped by its key when its product changed would break the first; one sent
 * although unchanged, the second.
 */
afterEach(async () => {
  await closeServices();
  clearSecrets();
});

interface Night {
  /** What changes before this night's upload (SKUs of changed rows are collected). */
  edit?: (c: Catalog, changed: Set<string>) => void;
  /** The currency `--set` fills rows without one with. */
  currency?: string;
}

/**
 * Uploads the catalog night after night with one state directory, and checks each night against
 * `genser convert`: the SKUs sent, their envelope type, the delta counts, and what the server holds.
 */
async function nights(c: Catalog, plan: Night[], upload: { run: Runner; flags: string[] }) {
  const guarded = !upload.flags.includes('100%');
  // What each SKU's accepted source key was made from (header, values, --set): on the guarded
  // path every issue-free row's key is kept (sent, or noted when its payload is the same).
  const keyed = new Map<string, string>();
  const svc = await startService();
  const state = fresh('state');
  const env = { GENSER_API_URL: svc.server.url, GENSER_API_KEY: KEY };
  let lastCurrency = 'KRW';
  for (const [i, night] of plan.entries()) {
    const edited = new Set<string>();
    night.edit?.(c, edited);
    const file = c.csv();
    const flags = ['--set', `currency=${night.currency ?? 'KRW'}`];
    const want = await converted(file, flags);
    expect(want.size).toBe(c.rows.length);
    const before = new Map(svc.held);
    const differs = [...want.keys()].filter((sku) => before.get(sku) !== want.get(sku));
    const created = differs.filter((sku) => !before.has(sku));
    // The generator's edits are among them (else the oracle would see no change at all).
    // The oracle agrees with the generator: exactly the new and edited rows differ, and on a
    // night whose --set currency is another, the rows without a currency.
    for (const r of c.rows) if (!before.has(r.sku)) edited.add(r.sku);
    const currency = night.currency ?? 'KRW';
    if (currency !== lastCurrency) for (const r of c.rows) if (r.currency === '') edited.add(r.sku);
    lastCurrency = currency;
    expect([...differs].sort(), `night ${i + 1}`).toEqual([...edited].sort());

    const source = (r: Row) => JSON.stringify([c.columns, c.columns.map((k) => r[k]), flags]);
    const skipped = c.rows.filter((r) => keyed.get(r.sku) === source(r)).length;

    svc.night.length = 0;
    const args = [
      'upload',
      file,
      '--state',
      state,
      ...flags,
      ...upload.flags,
      ...(guarded ? ['--debug'] : []),
    ];
    const run = await upload.run(args, env);
    const where = `night ${i + 1}: ${run.stderr}`;
    expect(run.code, where).toBe(0);
    expect(svc.night.map((p) => p.sku).sort(), where).toEqual([...differs].sort());
    for (const p of svc.night)
      expect(p.type, `${where} ${p.sku}`).toBe(before.has(p.sku) ? 'update_product' : 'create_product');
    expect(run.stderr, where).toContain(
      `state: ${created.length} new, ${differs.length - created.length} changed, ${want.size - differs.length} unchanged (not sent)`,
    );
    for (const [sku, payload] of want) expect(svc.held.get(sku), `${where} ${sku}`).toBe(payload);
    expect(run.stderr).not.toContain(KEY);
    if (!guarded) continue;
    // The guard's pass runs once products are known: the rows skipped by their key, counted.
    if (before.size > 0)
      expect(run.stderr, where).toContain(
        `--max-change: ${differs.length - created.length} changed; ${skipped} rows not mapped again (source key accepted before)`,
      );
    for (const r of c.rows) keyed.set(r.sku, source(r));
  }
}

/** Two price changes, a Korean name, an availability, a price put back, a row added, one removed. */
function usual(c: Catalog, changed: Set<string>) {
  changed.add(c.change('price', changed));
  changed.add(c.change('price', changed));
  changed.add(c.change('name', changed));
  changed.add(c.change('availability', changed));
  c.revert(changed);
  const added = c.product();
  c.rows.splice(Math.floor(c.random() * c.rows.length), 0, added);
  changed.add(added.sku);
  const gone = c.rows.findIndex((r) => !changed.has(r.sku));
  c.rows.splice(gone, 1);
}

/**
 * Eight nights: the first sends all; then edits; the columns reordered (new keys, the same
 * payloads); edits on the new order; another `--set` currency (rows without one change); the
 * old one back with nothing else changed; the first column order back; and a night without change.
 */
const NIGHTS: Night[] = [
  {},
  { edit: usual },
  {
    edit: (c, changed) => {
      usual(c, changed);
      c.reorder();
    },
  },
  { edit: usual },
  { edit: usual, currency: 'USD' },
  { currency: 'KRW' },
  {
    edit: (c, changed) => {
      c.columns = COLUMNS;
      usual(c, changed);
    },
  },
  {},
];

describe('nightly uploads with source keys: never a changed product skipped, never an unchanged one sent', () => {
  it('eight nights on the guarded path (default --max-change)', async () => {
    await nights(new Catalog(11, 40), NIGHTS, { run: inProcess, flags: [] });
  });

  it('eight nights on the streamed path (--max-change 100%)', async () => {
    await nights(new Catalog(12, 40), NIGHTS, { run: inProcess, flags: ['--max-change', '100%'] });
  });

  // The workers need the built code (dist/): these nights run bin/genser.js. Four nights each:
  // all new, edits, the columns reordered, no change.
  const FOUR = [...NIGHTS.slice(0, 3), {}];
  it('four nights with a pool of two workers (--threads 2), guarded', async () => {
    await nights(new Catalog(13, 40), FOUR, { run: spawned, flags: ['--threads', '2'] });
  });

  it('four nights with a second thread (--threads 1), streamed', async () => {
    await nights(new Catalog(14, 40), FOUR, {
      run: spawned,
      flags: ['--threads', '1', '--max-change', '100%'],
    });
  });
});
