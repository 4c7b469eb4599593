import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { priceOf, priceOfJson } from '../../src/payload/price.js';

/** The oracle: the price of the parsed object, as the guard read it before the scan. */
const parsed = (text: string) => priceOf(JSON.parse(text));
const scanned = (text: string) => priceOfJson(new TextEncoder().encode(text));
/** The same answer, or both throw (a top level of null is no product). */
function same(text: string): boolean {
  const outcome = (read: (t: string) => number | undefined) => {
    try {
      return { price: read(text) };
    } catch (err) {
      return { threw: err instanceof Error ? err.constructor : err };
    }
  };
  const a = outcome(scanned);
  const b = outcome(parsed);
  return 'price' in a && 'price' in b ? Object.is(a.price, b.price) : a.threw === b.threw;
}

/** Values a price may be, or what may stand where one is looked for. */
const priceLike = fc.oneof(
  fc.double(),
  fc.integer(),
  fc.constantFrom(
    '12.5',
    ' 7 ',
    '',
    '  ',
    'n/a',
    '1e3',
    '0x10',
    '-0',
    '\u00a09\u00a0',
    '12\u20ac',
    null,
    true,
    false,
  ),
  fc.string(),
  fc.jsonValue({ maxDepth: 2 }),
);
const key = fc.constantFrom('price', 'offers', 'name', '@type', 'pr\\u0069ce', 'offer', 'prices', 'Price');
/** Members written by hand, so that a key may come twice and keys may be escaped (JSON.parse keeps the last). */
const members = (value: fc.Arbitrary<string>) =>
  fc
    .tuple(fc.array(fc.tuple(key, value), { maxLength: 6 }), fc.constantFrom(',', ' , ', ',\n  '))
    .map(([ms, comma]) => ms.map(([k, v]) => `"${k}":${v}`).join(comma));
const json = (v: unknown) => (v === undefined ? 'null' : JSON.stringify(v));
const offerText = members(priceLike.map(json)).map((m) => `{${m}}`);
const offersText = fc.oneof(
  offerText,
  fc.array(offerText, { maxLength: 3 }).map((os) => `[ ${os.join(',')} ]`),
  priceLike.map(json),
);
const productText = fc
  .array(fc.tuple(key, fc.oneof(offersText, priceLike.map(json))), { maxLength: 7 })
  .map((ms) => `{ ${ms.map(([k, v]) => `"${k}" : ${v}`).join(',')} }`);

describe('a price read from JSON bytes', () => {
  it('is what the parsed object says, for products written by hand (duplicate and escaped keys, any spacing)', () => {
    fc.assert(
      fc.property(productText, (text) => {
        expect(same(text), text).toBe(true);
      }),
      { numRuns: 3000, endOnFailure: true },
    );
  });

  it('is what the parsed object says, for any JSON object and for payloads as genser writes them', () => {
    const payload = fc.record({
      '@type': fc.constant('Product'),
      name: fc.string(),
      description: fc.constantFrom('a "price": 5 in text', '{"offers":{"price":1}}', '\\"price\\":'),
      offers: fc.oneof(
        fc.record({ '@type': fc.constant('Offer'), price: priceLike, priceCurrency: fc.constant('KRW') }),
        fc.array(fc.record({ price: priceLike, extra: fc.jsonValue({ maxDepth: 2 }) }), { maxLength: 3 }),
      ),
      price: fc.option(priceLike, { nil: undefined }),
    });
    fc.assert(
      fc.property(
        fc.oneof(payload, fc.jsonValue({ maxDepth: 3 })),
        fc.constantFrom(undefined, 2),
        (value, indent) => {
          const text = JSON.stringify(value, null, indent);
          if (text === undefined) return;
          expect(same(text), text).toBe(true);
        },
      ),
      { numRuns: 3000, endOnFailure: true },
    );
  });

  it('reads the offer, its first of a list, and the legacy price; nothing from text that only looks like one', () => {
    expect(scanned('{"offers":{"@type":"Offer","price":12000,"priceCurrency":"KRW"}}')).toBe(12000);
    expect(scanned('{"offers":[{"price":"9.5"},{"price":1}]}')).toBe(9.5);
    expect(scanned('{"offers":{"price":null},"price":300}')).toBe(300);
    expect(scanned('{"name":"\\"price\\": 5","offers":{"price":"n/a"}}')).toBeUndefined();
    expect(scanned('{"price":1,"price":2}')).toBe(2);
    expect(scanned('{"pr\\u0069ce":4}')).toBe(4);
    expect(scanned('[{"price":1}]')).toBeUndefined();
  });
});
