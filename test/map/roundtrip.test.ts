import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { feedItems } from '../../src/feed/inline.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { FeedItem, FeedOptions } from '../../src/shared/types.js';

const options: FeedOptions = {
  format: 'standard',
  kind: 'products',
  encoding: 'utf-8',
  language: 'ko',
  strict: false,
  country: 'KR',
};

// Text a merchant may type: Korean, Japanese, commas, quotes, newlines; never only spaces.
const text = fc
  .array(fc.constantFrom('가', '방', 'バ', 'ッ', 'a', 'Z', '1', ',', '"', ' ', '\n', ';', "'", '&', '<'), {
    minLength: 1,
    maxLength: 30,
  })
  .map((cs) => cs.join(''))
  .filter((s) => s.trim() !== '');

describe('CSV round trip through the real reader, mapping and builder', () => {
  it('property: names, descriptions and prices written to CSV come back unchanged in the product', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-roundtrip-'));
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ name: text, description: text, price: fc.integer({ min: 1, max: 10 ** 9 }) }), {
          minLength: 1,
          maxLength: 8,
        }),
        async (rows) => {
          const file = join(dir, `feed-${n++}.csv`);
          const csv = Papa.unparse(
            rows.map((r, i) => ({
              sku: `S-${i}`,
              'name@ko': r.name,
              description: r.description,
              price: r.price,
            })),
            { newline: '\n' },
          );
          writeFileSync(file, csv);
          const items: FeedItem[] = [];
          for await (const item of feedItems([file], options, memoryLogger())) items.push(item);
          const products = items.filter((i) => i.row > 0);
          expect(products).toHaveLength(rows.length);
          products.forEach((item, i) => {
            const p = item.payload as Record<string, any>;
            expect(p.sku).toBe(`S-${i}`);
            expect(p.name).toEqual({ '@value': rows[i].name.trim(), '@language': 'ko' });
            expect(p.description[0].text).toBe(rows[i].description.trim());
            expect(p.offers.price).toBe(rows[i].price);
          });
        },
      ),
      { numRuns: 25 },
    );
  });
});
