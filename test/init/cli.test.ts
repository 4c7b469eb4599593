import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { gtinCheckDigit } from '../../src/schema/checks.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { genser } from '../helpers/run-cli.js';
import { json, productsOf, type ScriptedServer, scriptedServer } from '../upload/servers.js';

const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'genser-init-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearSecrets();
});

/** The real WooCommerce export with made-up barcodes in the column WooCommerce 9.2+ exports. */
function wooWithBarcodes(): string {
  const parsed = Papa.parse<Record<string, string>>(
    readFileSync(join(root, 'fixtures', 'real', 'woocommerce-sample-products.csv'), 'utf8'),
    { header: true, skipEmptyLines: true },
  );
  let n = 0;
  for (const r of parsed.data) {
    const body = `2${String(++n).padStart(11, '0')}`;
    r['GTIN, UPC, EAN, or ISBN'] = body + gtinCheckDigit(body);
  }
  const file = join(dir, 'woo.csv');
  const fields = [...(parsed.meta.fields ?? []), 'GTIN, UPC, EAN, or ISBN'];
  writeFileSync(file, Papa.unparse({ fields, data: parsed.data }));
  return file;
}

describe('genser init, then upload (CLI)', () => {
  it('a placeholder left in the mapping stops upload before anything is sent; filled, the upload needs no --set', async () => {
    server = await scriptedServer((_q, res) => json(res, 200, {}));
    const feed = wooWithBarcodes();
    const mapping = join(dir, 'genser.mapping.json');
    const env = { GENSER_API_KEY: 'init-cli-key-7f3a', GENSER_STATE_DIR: join(dir, 'state') };
    const init = await genser(['init', feed, '-o', mapping, '--country', 'US']);
    expect(init.code).toBe(0);
    expect(init.stderr).toContain(
      `What the export cannot say, written into ${mapping} ("notes"; replace each "FILL IN:" value before the first run):`,
    );

    const refused = await genser(['upload', feed, '--mapping', mapping, '--api-url', server.url], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr.split('\n')[0]).toBe(
      `genser: mapping file ${mapping}: /defaults/brand_id is still the placeholder genser init wrote ("FILL IN: your brand's id, e.g. my-brand"), and 1 more: /defaults/brand_name; nothing is read or sent until they are filled in`,
    );
    expect(server.requests).toHaveLength(0);

    // The merchant sells one brand: they write it where init said.
    const edited = JSON.parse(readFileSync(mapping, 'utf8'));
    edited.defaults.brand_id = 'woo';
    edited.defaults.brand_name = 'WooCommerce';
    writeFileSync(mapping, JSON.stringify(edited, null, 2));
    const sent = await genser(['upload', feed, '--mapping', mapping, '--api-url', server.url], env);
    expect(sent.stderr).toContain('upload: 22 rows, 0 invalid');
    expect(sent.code).toBe(0);
    const products = server.requests.flatMap((q) => productsOf(q.body));
    expect(products).toHaveLength(22);
    expect(products[0]).toMatchObject({
      brand: { '@id': 'woo' },
      offers: { priceCurrency: 'USD' },
    });
  });
});
