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
      // --quiet lists the errors themselves, without the groups by kind.
      expect(r.stderr, flag).toMatch(flag === '--quiet' ? /^ {2}error \S+ row \d+/m : /error required/);
    }
  });
});

describe('--quiet on the real Shopify export', () => {
  const feed = join(root, 'fixtures', 'real', 'shopify-product-data.csv');
  /** What --quiet may print: the errors listed (with their heading and "... more"), and the last line. */
  const allowed =
    /^( {2}error |First \d+ of \d+ issues:|Issues:| {2}\.\.\. \d+ more|FAILED: |OK: |dry run: )/;

  for (const command of ['validate', 'upload']) {
    it(`${command}: only the errors and the final line, no groups, warnings or hints`, async () => {
      const args = [command, feed, '--preset', 'shopify', ...(command === 'upload' ? ['--dry-run'] : [])];
      const loud = await genser(args);
      const quiet = await genser([...args, '--quiet']);
      expect(quiet.code).toBe(loud.code);
      const lines = quiet.stderr.trimEnd().split('\n');
      for (const line of lines) expect(line).toMatch(allowed);
      expect(lines.filter((l) => l.startsWith('  error ')).length).toBe(20);
      expect(lines.at(-1)).toMatch(
        command === 'validate' ? /^FAILED: 21 row\(s\)/ : /^dry run: 21 rows, 21 invalid/,
      );
      expect(loud.stderr).toMatch(/Problems by kind|Required fields your feed lacks/);
      expect(lines.length).toBeLessThan(loud.stderr.trimEnd().split('\n').length);
    });
  }
});
