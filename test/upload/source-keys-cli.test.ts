import { writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clearSecrets } from '../../src/shared/secrets.js';
import { GUARDS_OFF } from '../helpers/guards-off.js';
import { genser } from '../helpers/run-cli.js';
import {
  Catalog,
  COLUMNS,
  closeServices,
  converted,
  fresh,
  gtin,
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
  vi.useRealTimers();
  await closeServices();
  clearSecrets();
});

interface Night {
  /** What changes before this night's upload (SKUs of changed rows are collected). */
  edit?: (c: Catalog, changed: Set<string>) => void;
  /** The currency `--set` fills rows without one with. */
  currency?: string;
  /**
   * The night's clock (in this process, Date only, frozen): `--set availability_ends=+30d` counts
   * from its day in Seoul (the default country's zone).
   */
  at?: string;
}

/** The calendar day in Seoul (UTC+9, no daylight saving) of an instant. */
const seoulDay = (at: string | undefined) =>
  at === undefined ? undefined : new Date(Date.parse(at) + 9 * 3600_000).toISOString().slice(0, 10);

/**
 * Uploads the catalog night after night with one state directory, and checks each night against
 * `genser convert`: the SKUs sent, their envelope type, the delta counts, and what the server holds.
 */
async function nights(
  c: Catalog,
  plan: Night[],
  upload: { run: Runner; flags: string[]; set?: string[]; ndjson?: true },
) {
  const guarded = !upload.flags.includes('100%');
  // What each SKU's accepted source key was made from (header, values, --set): on the guarded
  // path every issue-free row's key is kept (sent, or noted when its payload is the same).
  const keyed = new Map<string, string>();
  const svc = await startService();
  const state = fresh('state');
  const env = { GENSER_API_URL: svc.server.url, GENSER_API_KEY: KEY };
  let lastCurrency = 'KRW';
  let lastDay = seoulDay(plan[0].at);
  for (const [i, night] of plan.entries()) {
    if (night.at) vi.setSystemTime(night.at);
    const edited = new Set<string>();
    night.edit?.(c, edited);
    const file = upload.ndjson ? c.ndjson() : c.csv();
    const flags = ['--set', `currency=${night.currency ?? 'KRW'}`, ...(upload.set ?? [])];
    const want = await converted(file, flags);
    expect(want.size).toBe(c.rows.length);
    const before = new Map(svc.held);
    const differs = [...want.keys()].filter((sku) => before.get(sku) !== want.get(sku));
    const created = differs.filter((sku) => !before.has(sku));
    // The oracle agrees with the generator: exactly the new and edited rows differ, and on a
    // night whose --set currency is another, the rows without a currency; on a new day, those
    // without an end date (when --set gives a relative one).
    for (const r of c.rows) if (!before.has(r.sku)) edited.add(r.sku);
    const currency = night.currency ?? 'KRW';
    if (currency !== lastCurrency) for (const r of c.rows) if (r.currency === '') edited.add(r.sku);
    lastCurrency = currency;
    const day = seoulDay(night.at);
    if (day !== lastDay) for (const r of c.rows) if (r.availability_ends === '') edited.add(r.sku);
    lastDay = day;
    expect([...differs].sort(), `night ${i + 1}`).toEqual([...edited].sort());

    const source = (r: Row) => JSON.stringify([c.columns, c.columns.map((k) => r[k]), flags, day]);
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
        `guards: ${differs.length - created.length} changed; ${skipped} rows not mapped again (source key accepted before)`,
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
    await nights(new Catalog(12, 40), NIGHTS, {
      run: inProcess,
      flags: ['--max-change', '100%', ...GUARDS_OFF],
    });
  });

  it('eight nights of an NDJSON feed (its keys named, its values typed), guarded', async () => {
    await nights(new Catalog(16, 40), NIGHTS, { run: inProcess, flags: [], ndjson: true });
  });

  // The workers need the built code (dist/): these nights run bin/genser.js. Three nights each:
  // all new, edits, no change.
  const THREE = [...NIGHTS.slice(0, 2), {}];
  it('three nights with a pool of two workers (--threads 2), guarded', async () => {
    await nights(new Catalog(13, 40), THREE, { run: spawned, flags: ['--threads', '2'] });
  });

  it('three nights with a second thread (--threads 1), streamed', async () => {
    await nights(new Catalog(14, 40), THREE, {
      run: spawned,
      flags: ['--threads', '1', '--max-change', '100%', ...GUARDS_OFF],
    });
  });
});

describe('a relative --set date: a new day makes new keys', () => {
  it('rows without an end date are sent again on the next day, not twice on the same day', async () => {
    const c = new Catalog(15, 40);
    for (const r of c.rows.slice(0, 5)) r.availability_ends = '';
    await nights(
      c,
      [
        { at: '2026-11-24T17:30:00Z' }, // 02:30 on 25 November in Seoul
        { at: '2026-11-24T21:00:00Z' }, // the same day in Seoul: nothing sent
        { at: '2026-11-25T17:30:00Z', edit: usual }, // the next day: the 5 rows move their end
        { at: '2026-11-25T18:30:00Z' },
      ],
      { run: inProcess, flags: [], set: ['--set', 'availability_ends=+30d'] },
    );
  });
});

describe('a shop transform that picks the price by the run date', () => {
  it('google-merchant: sales that end or start between two nights are sent; nothing is sent twice', async () => {
    const head = [
      'id',
      'title',
      'description',
      'link',
      'image_link',
      'availability',
      'availability_date',
      'price',
      'sale_price',
      'sale_price_effective_date',
      'brand',
      'gtin',
      'mpn',
      'google_product_category',
      'product_type',
      'expiration_date',
    ];
    // Rows 1-3: a sale ending 1 December 08:00Z; rows 4-5: one starting then; 6-10: no sale.
    const window = (i: number) =>
      i <= 3
        ? '2026-11-01T00:00-08:00/2026-12-01T00:00-08:00'
        : i <= 5
          ? '2026-12-01T00:00-08:00/2027-01-01T00:00Z'
          : '';
    const rows = Array.from({ length: 10 }, (_, k) => {
      const i = k + 1;
      return [
        `GM-${i}`,
        `Mug ${i}`,
        `Steel mug ${i}`,
        `https://shop.example.com/mug-${i}`,
        `https://shop.example.com/mug-${i}.jpg`,
        'in stock',
        '2026-01-01',
        `${10 + i}.00 USD`,
        window(i) ? `${5 + i}.00 USD` : '',
        window(i),
        'Acme',
        gtin(`400638${String(i).padStart(6, '0')}`),
        `MUG-${i}`,
        '2951',
        'Home > Kitchen > Mugs',
        '2027-06-30',
      ].join('\t');
    });
    const file = `${fresh('merchant')}.tsv`;
    writeFileSync(file, `${[head.join('\t'), ...rows].join('\n')}\n`);
    const svc = await startService();
    const state = fresh('state');
    const flags = ['--preset', 'google-merchant'];
    const env = { GENSER_API_URL: svc.server.url, GENSER_API_KEY: KEY };
    const priceOf = (sku: string) => JSON.parse(svc.held.get(sku)!).offers.price as number;

    const nights: [string, number, number | undefined][] = [
      ['2026-11-30T17:30:00Z', 10, undefined], // all new
      ['2026-12-01T17:30:00Z', 5, 5], // rows 1-5 change price; 6-10 skipped by their key
      ['2026-12-01T19:00:00Z', 0, 10], // the same prices: all skipped
    ];
    for (const [at, sent, skipped] of nights) {
      vi.setSystemTime(at);
      const want = await converted(file, flags);
      expect(want.size).toBe(10);
      const differs = [...want].filter(([sku, p]) => svc.held.get(sku) !== p).map(([sku]) => sku);
      expect(differs, at).toHaveLength(sent);
      svc.night.length = 0;
      // 5 of 10 products change on the second night, 3 by more than half (a sale ends): guards
      // that let them through.
      const run = await genser(
        [
          'upload',
          file,
          '--state',
          state,
          '--debug',
          '--max-change',
          '60%',
          '--price-shock',
          '40%:50%',
          ...flags,
        ],
        env,
      );
      expect(run.code, run.stderr).toBe(0);
      expect(
        svc.night.map((p) => p.sku),
        at,
      ).toEqual(differs);
      if (skipped !== undefined) expect(run.stderr, at).toContain(`; ${skipped} rows not mapped again`);
      for (const [sku, payload] of want) expect(svc.held.get(sku), `${at} ${sku}`).toBe(payload);
    }
    expect([1, 2, 3, 4, 5, 6].map((i) => priceOf(`GM-${i}`))).toEqual([11, 12, 13, 9, 10, 16]);
  });
});
