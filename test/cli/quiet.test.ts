import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { genser } from '../helpers/run-cli.js';

const root = join(import.meta.dirname, '..', '..');

describe('--quiet and --no-warnings', () => {
  // A real Magento export: rows with errors (no GTIN) and warnings (no category codes).
  const feed = join(root, 'fixtures', 'real', 'magento-simple-products-bags.csv');
  const mapping = join(root, 'fixtures', 'mappings', 'magento-sample-bags.json');

  it('lists warnings by default, and leaves them out (still counted) with either flag', async () => {
    const plain = await genser(['validate', feed, '--mapping', mapping]);
    expect(plain.stderr).toMatch(/warning recommended/);
    for (const flag of ['--quiet', '--no-warnings']) {
      const r = await genser(['validate', feed, '--mapping', mapping, flag]);
      expect(r.code).toBe(plain.code);
      expect(r.stderr, flag).not.toMatch(/warning recommended|^warning:/m);
      expect(r.stderr, flag).toMatch(/\d+ warning\(s\)/);
      expect(r.stderr, flag).toMatch(/error required/);
    }
  });
});
