import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  headerContext,
  keptWithKey,
  placeKept,
  SOURCE_KEY_BYTES,
  settingsDigest,
  sourceKey,
  sourceKeyText,
} from '../../src/feed/source-keys.js';
import { resolveFeedMapping } from '../../src/map/presets.js';
import { libraryVersions } from '../../src/shared/code-digest.js';
import type { FeedOptions, SourceRecord } from '../../src/shared/types.js';

/**
 * Source keys (docs/nightly.md, "Unchanged rows"): a row whose key is in the state is skipped, so
 * any change that could change its payload or issues must change its key. Keys are compared as
 * text: two records "collide" when their keys are equal.
 */

const opts = (over: Partial<FeedOptions> = {}): FeedOptions => ({
  format: 'standard',
  kind: 'products',
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
  runDate: '2026-01-31T20:00:00Z',
  ...over,
});

const SETTINGS = settingsDigest(opts(), undefined);
const record = (fields: Record<string, unknown>, shape: SourceRecord['shape'] = 'rows'): SourceRecord => ({
  file: 'mem.csv',
  row: 1,
  line: 2,
  fields,
  shape,
});

/** A JSON record's key (column names in the key). */
const jsonKey = (fields: Record<string, unknown>, shape: SourceRecord['shape'] = 'rows') =>
  sourceKeyText(sourceKey(SETTINGS, record(fields, shape), shape, true));

/** A CSV row's key: the header's names in the context, values only in the row's part. */
const csvKey = (names: string[], values: string[]) => {
  const fields: Record<string, unknown> = {};
  names.forEach((n, i) => {
    fields[n] = values[i];
  });
  return sourceKeyText(sourceKey(headerContext(SETTINGS, names), record(fields), 'rows', false));
};

/** Every key distinct: no two of these inputs collide. */
function expectDistinct(keys: string[]): void {
  expect(new Set(keys).size, keys.join('\n')).toBe(keys.length);
}

const base = { sku: 'A-1', name: '면 티셔츠', price: '12000', url: 'https://shop.example/a' };

describe('sourceKey', () => {
  it('is 16 bytes, 22 characters of base64url as the state stores it', () => {
    const key = sourceKey(SETTINGS, record(base), 'rows', true);
    expect(key.length).toBe(SOURCE_KEY_BYTES);
    expect(sourceKeyText(key)).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });

  it('changes when any single value changes (JSON records and CSV rows)', () => {
    const names = Object.keys(base);
    const values = Object.values(base);
    const json = [jsonKey(base)];
    const csv = [csvKey(names, values)];
    for (const name of names) {
      for (const changed of ['', ' ', `${base[name as keyof typeof base]} `, 'x']) {
        json.push(jsonKey({ ...base, [name]: changed }));
        csv.push(
          csvKey(
            names,
            names.map((n) => (n === name ? changed : base[n as keyof typeof base])),
          ),
        );
      }
    }
    expectDistinct(json);
    expectDistinct(csv);
  });

  it('changes when a column is renamed or the columns are reordered', () => {
    const { sku, name, price, url } = base;
    expectDistinct([
      jsonKey(base),
      jsonKey({ sku, title: name, price, url }),
      jsonKey({ sku, name, cost: price, url }),
      jsonKey({ name, sku, price, url }),
      jsonKey({ sku, name, url, price }),
      jsonKey({ sku, name, price }),
      jsonKey({ sku, name, price, url, extra: '' }),
    ]);
    expectDistinct([
      csvKey(['sku', 'name', 'price', 'url'], [sku, name, price, url]),
      csvKey(['sku', 'title', 'price', 'url'], [sku, name, price, url]),
      csvKey(['name', 'sku', 'price', 'url'], [sku, name, price, url]),
      csvKey(['sku', 'name', 'url', 'price'], [sku, name, price, url]),
      csvKey(['sku', 'name', 'price', 'url'], [name, sku, price, url]),
    ]);
  });

  it('does not let a value or a name pass for the next one (length prefixes)', () => {
    expectDistinct([
      jsonKey({ a: 'x,y', b: '' }),
      jsonKey({ a: 'x', b: ',y' }),
      jsonKey({ a: 'x,', b: 'y' }),
      jsonKey({ a: '', b: 'x,y' }),
      // A value that spells the next part's encoding.
      jsonKey({ a: 'xs1:y' }),
      jsonKey({ a: 'x', b: 'y' }),
      jsonKey({ a: 'x1:bs1:y' }),
      jsonKey({ a: 'x', '1:b': 'y' }),
      jsonKey({ 'a1:b': 'x' }),
    ]);
    expectDistinct([
      csvKey(['a', 'b'], ['x,y', '']),
      csvKey(['a', 'b'], ['x', ',y']),
      csvKey(['a', 'b'], ['', 'x,y']),
      csvKey(['a', 'b'], ['xs1:', 'y']),
      csvKey(['a', 'b'], ['x', 's1:y']),
    ]);
    // Column names too: ["ab"] is not ["a", "b"], nor a name that holds the separator.
    expectDistinct([
      csvKey(['ab', 'c'], ['1', '2']),
      csvKey(['a', 'bc'], ['1', '2']),
      csvKey(['a', 'b', 'c'], ['1', '2', '']),
      csvKey(['a\u0001b', 'c'], ['1', '2']),
    ]);
  });

  it('gives every pair of short values its own key (all pairs over the characters of the encoding)', () => {
    // Every text of up to 3 characters over an alphabet that spells the key's own separators and
    // prefixes: a scheme without length prefixes (or with a weak one) collides somewhere here.
    const texts = [''];
    for (let len = 1, layer = ['']; len <= 3; len++) {
      layer = layer.flatMap((t) => ['x', 's', ':', '1'].map((c) => t + c));
      texts.push(...layer);
    }
    const values: (string | undefined)[] = [...texts, undefined];
    const csv = new Set<string>();
    const json = new Set<string>();
    const context = headerContext(SETTINGS, ['a', 'b']);
    for (const a of values) {
      for (const b of values) {
        csv.add(sourceKeyText(sourceKey(context, record({ a, b }), 'rows', false)));
        json.add(sourceKeyText(sourceKey(SETTINGS, record({ a, b }), 'rows', true)));
      }
    }
    expect(csv.size).toBe(values.length ** 2);
    expect(json.size).toBe(values.length ** 2);
    // Column names the same way: every header of two short names.
    const names = texts;
    const headers = new Set<string>();
    for (const a of names) {
      for (const b of names) {
        if (a === b) continue; // a CSV header's names are distinct
        headers.add(csvKey([a, b], ['v', 'w']));
      }
    }
    expect(headers.size).toBe(names.length * (names.length - 1));
  });

  it('tells undefined, empty text, numbers, booleans, null and objects apart (JSON records)', () => {
    expectDistinct(
      [
        undefined,
        '',
        'u',
        0,
        '0',
        1,
        '1',
        1.5,
        '1.5',
        true,
        'true',
        false,
        null,
        'null',
        {},
        '{}',
        [],
        '[]',
        [1],
        { a: 1 },
        { a: '1' },
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ].map((v) => jsonKey({ sku: 'A', price: v })),
    );
    // An absent column is not an undefined one: the names are in the key.
    expectDistinct([jsonKey({ sku: 'A' }), jsonKey({ sku: 'A', price: undefined })]);
  });

  it('tells non-finite numbers from null, at the top and nested (JSON reads 1e999 as Infinity)', () => {
    // JSON.stringify writes Infinity, -Infinity and NaN as null: the mapping does not (a list of
    // ["C", 1e999] maps to the codes C and "Infinity"), so their keys must differ.
    expectDistinct(
      [
        null,
        Infinity,
        -Infinity,
        Number.NaN,
        'Infinity',
        '\u0000Infinity',
        [null],
        [Infinity],
        [-Infinity],
        ['Infinity'],
        ['\u0000Infinity'],
        ['\u0000\u0000Infinity'],
        [Infinity, 'Infinity'],
        ['Infinity', Infinity],
        [Infinity, '\u0000Infinity'],
        ['\u0000Infinity', Infinity],
        { a: null },
        { a: Infinity },
        { a: { b: [1, Infinity] } },
        { a: { b: [1, null] } },
      ].map((v) => jsonKey({ sku: 'A', price: v })),
    );
    // Values without them keep one key each, as before.
    expect(jsonKey({ sku: 'A', price: [1, null] })).toBe(jsonKey({ sku: 'A', price: [1, null] }));
  });

  it("changes with the record's shape and with the context", () => {
    const fields = { sku: 'A', name: 'n' };
    expectDistinct([
      jsonKey(fields, 'rows'),
      jsonKey(fields, 'graph'),
      jsonKey(fields, 'legacy'),
      sourceKeyText(
        sourceKey(settingsDigest(opts({ strict: true }), undefined), record(fields), 'rows', true),
      ),
      // The same text read as a CSV row (header in the context) is another key.
      csvKey(['sku', 'name'], ['A', 'n']),
    ]);
  });

  it('gives the same key for the same inputs across calls, whatever size the records between them', () => {
    const small = record({ sku: 'S', name: '작은' });
    const medium = record({ sku: 'M', description: '가'.repeat(20_000) }); // 40 KB as UTF-16
    // Over 64 KiB as UTF-16: the scratch buffer grows past its first size.
    const large = record({ sku: 'L', description: '나'.repeat(40_000), html: '<p>'.repeat(10_000) });
    const keyOf = (r: SourceRecord) => sourceKeyText(sourceKey(SETTINGS, r, 'rows', true));
    const first = { small: keyOf(small), medium: keyOf(medium), large: keyOf(large) };
    const order = [small, large, small, medium, large, large, small, medium, small];
    for (const r of order) {
      const name = r === small ? 'small' : r === medium ? 'medium' : 'large';
      expect(keyOf(r), name).toBe(first[name]);
    }
    expectDistinct(Object.values(first));
    // A record that is a prefix of a larger one seen before: no stale bytes from the larger one.
    const prefix = record({ sku: 'L', description: '나'.repeat(40_000) });
    const prefixKey = keyOf(prefix);
    keyOf(large);
    expect(keyOf(prefix)).toBe(prefixKey);
    expect(prefixKey).not.toBe(first.large);
    // A large record differing only in its last character.
    const last = record({ sku: 'L', description: '나'.repeat(40_000), html: `${'<p>'.repeat(9_999)}<b>` });
    expect(keyOf(last)).not.toBe(first.large);
    // Keys returned earlier are not overwritten by later calls.
    const held = sourceKey(SETTINGS, small, 'rows', true);
    const copy = Buffer.from(held);
    keyOf(large);
    keyOf(medium);
    expect(held.equals(copy)).toBe(true);
  });

  it('does not confuse non-BMP characters, lone surrogates and their neighbours', () => {
    const values = [
      '😀', // U+1F600: \uD83D\uDE00
      '\uD83D',
      '\uDE00',
      '\uD83D\uDE01',
      '\uD83C\uDE00',
      '\uDE00\uD83D', // the halves swapped
      '\uD800',
      '\uDBFF',
      '\uDC00',
      '\uDFFF',
      '\uFFFD', // what a lossy encoding would make of a lone surrogate
      '\uFFFD\uFFFD',
      '?',
      '',
      '𠀀', // U+20000, a CJK extension B ideograph
      '\uD840',
    ];
    expectDistinct(values.map((v) => jsonKey({ name: v })));
    expectDistinct(values.map((v) => csvKey(['name'], [v])));
    // A pair split across two columns is not the pair in one of them.
    expectDistinct([
      jsonKey({ a: '😀', b: '' }),
      jsonKey({ a: '\uD83D', b: '\uDE00' }),
      jsonKey({ a: '', b: '😀' }),
      csvKey(['a', 'b'], ['😀', '']),
      csvKey(['a', 'b'], ['\uD83D', '\uDE00']),
      csvKey(['a', 'b'], ['', '😀']),
    ]);
    // In column names as well.
    expectDistinct([jsonKey({ '\uD800': 'x' }), jsonKey({ '\uDC00': 'x' }), jsonKey({ '\uFFFD': 'x' })]);
  });
});

describe('settingsDigest', () => {
  it('is the same for the same settings, and the run instant alone does not change it', () => {
    expect(settingsDigest(opts(), undefined)).toBe(SETTINGS);
    expect(settingsDigest(opts({ runDate: '2027-06-01T00:00:00Z' }), undefined)).toBe(SETTINGS);
  });

  it('changes with each setting that the payloads depend on', () => {
    expectDistinct([
      SETTINGS,
      settingsDigest(opts({ format: 'legacy' }), undefined),
      settingsDigest(opts({ format: 'legacy', kind: 'contents' }), undefined),
      settingsDigest(opts({ country: 'JP' }), undefined),
      settingsDigest(opts({ country: 'KR', countryGiven: true }), undefined),
      settingsDigest(opts({ language: 'en' }), undefined),
      settingsDigest(opts({ strict: true }), undefined),
      settingsDigest(opts({ inputType: 'ndjson' }), undefined),
      settingsDigest(opts({ delimiter: ';' }), undefined),
      settingsDigest(opts({ encoding: 'cp949' }), undefined),
    ]);
  });

  it('changes with the --set entries and with what they resolve to', () => {
    const withSet = (set: string[], runDate = '2026-01-31T20:00:00Z') => {
      const options = opts({ set, runDate });
      return settingsDigest(options, resolveFeedMapping(options));
    };
    expectDistinct([
      SETTINGS,
      withSet(['currency=KRW']),
      withSet(['currency=USD']),
      withSet(['currency=KRW', 'availability_ends=+1y']),
      withSet(['availability_ends=+1y']),
      withSet(['availability_ends=+30d']),
    ]);
    // A fixed value: the same digest on any day.
    expect(withSet(['currency=KRW'], '2026-03-01T00:00:00Z')).toBe(withSet(['currency=KRW']));
    // A relative date: the same on the same day in the country's zone (Seoul, UTC+9) ...
    const ends = ['availability_ends=+30d'];
    expect(withSet(ends, '2026-01-31T15:00:00Z')).toBe(withSet(ends, '2026-02-01T14:59:00Z'));
    expect(withSet(ends, '2026-01-31T20:00:00Z')).toBe(withSet(ends, '2026-02-01T05:00:00Z'));
    // ... and another one the next day there, even when UTC's date has not changed.
    expect(withSet(ends, '2026-01-31T14:59:00Z')).not.toBe(withSet(ends, '2026-01-31T15:00:00Z'));
    expect(withSet(ends, '2026-02-01T14:59:00Z')).not.toBe(withSet(ends, '2026-02-01T15:00:00Z'));
    expect(withSet(['availability_starts=today'], '2026-01-31T14:59:00Z')).not.toBe(
      withSet(['availability_starts=today'], '2026-01-31T15:00:00Z'),
    );
  });

  it("changes with a mapping file's contents, not only its name", () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-keys-'));
    const file = join(dir, 'mapping.json');
    const digestOf = (fields: Record<string, unknown>, extra: Record<string, unknown> = {}) => {
      writeFileSync(file, JSON.stringify({ format: 'standard', ...extra, fields }));
      const options = opts({ mapping: file });
      return settingsDigest(options, resolveFeedMapping(options));
    };
    const fields = {
      sku: 'code',
      name: { column: 'title' },
      price: { column: 'cost', decimal: ',' },
      availability: { column: 'stock', map: { '1': 'InStock', '0': 'OutOfStock' } },
      category_code: { column: 'cats', split: ',', extract: '^A/(.+)$' },
    };
    const first = digestOf(fields);
    expect(digestOf(fields)).toBe(first);
    expectDistinct([
      first,
      digestOf({ ...fields, name: { column: 'name' } }),
      digestOf({ ...fields, price: { column: 'cost' } }),
      digestOf({ ...fields, availability: { column: 'stock', map: { '1': 'InStock', '0': 'SoldOut' } } }),
      digestOf({ ...fields, category_code: { column: 'cats', split: ',', extract: '^B/(.+)$' } }),
      digestOf({ ...fields, category_code: { column: 'cats', split: ';', extract: '^A/(.+)$' } }),
      digestOf({ ...fields, brand_name: { const: 'Luma' } }),
      digestOf(fields, { language: 'en' }),
      digestOf(fields, { country: 'US' }),
      digestOf(fields, { defaults: { currency: 'KRW' } }),
      digestOf(fields, { listSeparator: ';' }),
      digestOf(fields, { number: { thousands: ' ' } }),
    ]);
  });

  it("changes with a shipped preset's choice", () => {
    const preset = (name: string) => {
      const options = opts({ preset: name });
      return settingsDigest(options, resolveFeedMapping(options));
    };
    expectDistinct([SETTINGS, preset('shopify'), preset('magento'), preset('woocommerce')]);
  });
});

describe('codeDigest', () => {
  it('names the installed version of each library a payload depends on', () => {
    const versions = libraryVersions();
    for (const name of ['ajv', 'ajv-formats', 'iconv-lite', 'papaparse']) {
      const installed = JSON.parse(readFileSync(join('node_modules', name, 'package.json'), 'utf8')).version;
      expect(versions[name]).toBe(installed);
    }
  });
});

describe('keptWithKey', () => {
  it('keeps a GTIN of digits without warnings as `g` and its digits, and reads it back', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^\d{1,14}$/), (gtin) => {
        const text = keptWithKey([], gtin);
        expect(text).toBe(`g${gtin}`);
        expect(placeKept(text, { file: 'f', row: 2, line: 3 }, 'S')).toEqual({ issues: [], gtin });
      }),
    );
    expect(keptWithKey([], undefined)).toBe('');
  });

  it('keeps any other GTIN as JSON {gtin, warnings: []}, and reads it back', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (gtin) => {
        fc.pre(!/^\d+$/.test(gtin));
        const text = keptWithKey([], gtin);
        expect(text).toBe(JSON.stringify({ gtin, warnings: [] }));
        expect(placeKept(text, { file: 'f', row: 2, line: 3 }, 'S')).toEqual({ issues: [], gtin });
      }),
    );
  });
});
