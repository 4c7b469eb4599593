import { describe, expect, it } from 'vitest';
import { parseMapping } from '../../src/map/mapping-file.js';
import { pick, stockColumns } from '../../src/stock/columns.js';
import { withStock } from '../../src/stock/merge.js';
import { stockRow } from '../../src/stock/rows.js';
import { stockValue } from '../../src/stock/value.js';

/** The pure parts of `genser stock`: values, the merge, the columns and one row (no I/O). */
const bytes = (v: unknown) => Buffer.from(JSON.stringify(v));
const parse = (b: Uint8Array | undefined) => JSON.parse(Buffer.from(b!).toString('utf8'));

describe('stockValue', () => {
  it('reads in_stock yes/no words in any case, booleans and 1/0 numbers', () => {
    for (const raw of ['true', 'YES', 'y', '1', 1, true])
      expect(stockValue(raw, 'in_stock')).toEqual({ ok: true, value: 'InStock' });
    for (const raw of ['False', 'no', 'N', '0', 0, false])
      expect(stockValue(raw, 'in_stock')).toEqual({ ok: true, value: 'OutOfStock' });
  });

  it('reads availability and its feed spellings', () => {
    expect(stockValue('PreOrder', 'availability')).toEqual({ ok: true, value: 'PreOrder' });
    expect(stockValue('out of stock', 'availability')).toEqual({ ok: true, value: 'OutOfStock' });
    expect(stockValue('in_stock', 'availability')).toEqual({ ok: true, value: 'InStock' });
  });

  it('refuses other values with a code, the value named and a hint', () => {
    const bad = stockValue('maybe', 'in_stock');
    expect(bad).toMatchObject({ ok: false, code: 'type' });
    expect(!bad.ok && bad.message).toContain('`maybe`');
    expect(stockValue('soon', 'availability')).toMatchObject({ ok: false, code: 'enum' });
    expect(stockValue('  ', 'in_stock')).toMatchObject({ ok: false, code: 'required' });
  });

  it("applies a mapping's value map before reading", () => {
    const map = new Map<string, string | boolean>([
      ['Y', true],
      ['품절', 'OutOfStock'],
    ]);
    expect(stockValue('Y', 'in_stock', { map })).toEqual({ ok: true, value: 'InStock' });
    expect(stockValue('품절', 'availability', { map })).toEqual({ ok: true, value: 'OutOfStock' });
  });
});

describe('withStock', () => {
  it('legacy: isInStock true only for InStock, every other key as it was and in order', () => {
    const last = bytes({ code: 'A', name: 'a', isInStock: true, priceInfo: { price: 1 } });
    const out = Buffer.from(withStock('legacy', last, 'PreOrder')!.json).toString('utf8');
    expect(out).toBe('{"code":"A","name":"a","isInStock":false,"priceInfo":{"price":1}}');
  });

  it('standard: every offer of an offers array; none: undefined', () => {
    const last = bytes({ sku: 'A', offers: [{ availability: 'InStock' }, { availability: 'PreOrder' }] });
    expect(parse(withStock('standard', last, 'OutOfStock')?.json).offers).toEqual([
      { availability: 'OutOfStock' },
      { availability: 'OutOfStock' },
    ]);
    expect(withStock('standard', bytes({ sku: 'A' }), 'InStock')).toBeUndefined();
  });
});

describe('stockColumns', () => {
  it('without a mapping: sku or code, availability, in_stock or isInStock, header case aside', () => {
    const c = stockColumns('standard');
    expect(pick({ SKU: 'A-1' }, c.sku)?.value).toBe('A-1');
    expect(pick({ code: 'A-1', in_stock: '', IsInStock: 'no' }, c.value)).toMatchObject({
      column: 'IsInStock',
      value: 'no',
    });
  });

  it('legacy mapping: its code and isInStock columns, with its true/false words', () => {
    const mapping = parseMapping(
      JSON.stringify({
        fields: { code: '상품코드', isInStock: { column: '재고', true: ['있음'], false: ['없음'] } },
      }),
      'm.json',
      { format: 'legacy', kind: 'products' },
    );
    const columns = stockColumns('legacy', mapping);
    const last = bytes({ code: 'K-1', isInStock: true });
    const row = stockRow(
      { file: 'f.csv', row: 1, line: 2, shape: 'rows', fields: { 상품코드: 'K-1', 재고: '없음' } },
      { format: 'legacy', columns, lastPayload: (sku) => (sku === 'K-1' ? last : undefined) },
    );
    expect(row.valid).toBe(true);
    expect(parse(row.json).isInStock).toBe(false);
  });
});
