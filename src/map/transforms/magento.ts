import type { Issue, Language, ReadItem, SourceRecord } from '../../shared/types.js';
import { DERIVED, finalPrice, LeftOut, recordItem, type TransformContext, text } from './common.js';

/**
 * Magento 2's catalog export (docs/presets.md, "magento").
 * - A configurable product lists its simples in `configurable_variations`
 *   (`sku=A,size=S|sku=B,size=M`). Magento writes the simples right before their parent, so
 *   rows of simples that are "Not Visible Individually" are held until the next configurable
 *   (or any other product) arrives; the parent's fields fill what its simples lack, and its URL
 *   is theirs (they have no page of their own). The configurable itself is left out with a count:
 *   its simples are what is sold. Simples after their parent are served from the last parent.
 * - `additional_attributes` (`k=v,k=v`) become columns `attr.k` (a simple inherits its parent's);
 *   a column named for a known attribute (`gtin`, `brand`, ...) is read as `attr.gtin`, ... too.
 * - A row with a `store_view_code` adds that store's texts to the product above it as
 *   `name@ja`, `description@ja`, ... (language from the store code: ja/jp, ko/kr, en/us/uk/gb);
 *   it is not a product.
 * - `product_online` 2 (disabled) products are left out with a count.
 * Derived: genser:price (special_price inside its from/to dates, else price).
 */
/** The export's columns this transform reads to make its rows (`genser init` lists them as read). */
export const MAGENTO_READS = [
  'sku',
  'product_type',
  'visibility',
  'product_online',
  'store_view_code',
  'configurable_variations',
  'additional_attributes',
  'url_key',
  'price',
  'special_price',
  'special_price_from_date',
  'special_price_to_date',
] as const;

const INHERITED = [
  'categories',
  'description',
  'short_description',
  'base_image',
  'small_image',
  'thumbnail_image',
  'additional_images',
  'meta_title',
  'meta_keywords',
  'meta_description',
  'country_of_manufacture',
];
/** Texts a store view translates. */
const STORE_TEXTS = ['name', 'description', 'short_description', 'url_key', 'meta_title'];
/** Attribute columns always present, so a plan built from the first row sees them (presets read them). */
const KNOWN_ATTRIBUTES = ['gtin', 'ean', 'upc', 'barcode', 'brand', 'manufacturer', 'mpn'];
/** A configurable has a few dozen simples; past this many held rows they are not its simples. */
const MAX_HELD = 2000;

export function storeLanguage(code: string): Language | undefined {
  const c = code.toLowerCase();
  if (/^(ja|jp)(\b|_|-|$)/.test(c) || c.includes('japan')) return 'ja';
  if (/^(ko|kr)(\b|_|-|$)/.test(c) || c.includes('korea')) return 'ko';
  if (/^(en|us|uk|gb)(\b|_|-|$)/.test(c) || c.includes('english')) return 'en';
  return undefined;
}

/** `k=v,k=v` (values may hold `|`) -> entries; a comma inside a value stays with it. */
export function parseAttributes(raw: string): [string, string][] {
  const out: [string, string][] = [];
  for (const piece of raw.split(/,(?=[^,=]+=)/)) {
    const eq = piece.indexOf('=');
    if (eq <= 0) continue;
    out.push([piece.slice(0, eq).trim(), piece.slice(eq + 1).trim()]);
  }
  return out;
}

function childSkus(raw: string): Set<string> {
  const out = new Set<string>();
  for (const variation of raw.split('|')) {
    for (const [k, v] of parseAttributes(variation)) if (k === 'sku' && v !== '') out.add(v);
  }
  return out;
}

/** The added columns, empty: spread in one go (adding them one by one costs a second per 2,000 rows). */
const EXTRA_COLUMNS: Record<string, string> = Object.fromEntries([
  ...KNOWN_ATTRIBUTES.map((a) => [`attr.${a}`, '']),
  ...STORE_TEXTS.flatMap((c) => ['en', 'ko', 'ja'].map((l) => [`${c}@${l}`, ''])),
  [`${DERIVED}price`, ''],
]);

function prepared(record: SourceRecord, ctx: TransformContext): SourceRecord {
  const f: Record<string, unknown> = { ...record.fields, ...EXTRA_COLUMNS };
  // Magento's import format takes an attribute as a column of its own too (a `gtin` column
  // added to the export): the same attribute, read as `attr.gtin`.
  for (const a of KNOWN_ATTRIBUTES) if (text(record.fields, a) !== '') f[`attr.${a}`] = record.fields[a];
  for (const [k, v] of parseAttributes(text(f, 'additional_attributes'))) f[`attr.${k}`] = v;
  f[`${DERIVED}price`] = finalPrice(
    text(f, 'price'),
    text(f, 'special_price'),
    text(f, 'special_price_from_date'),
    text(f, 'special_price_to_date'),
    ctx.runDate,
  );
  return { ...record, fields: f };
}

function inherit(child: SourceRecord, parent: Record<string, unknown>): void {
  const f = child.fields;
  for (const c of INHERITED) if (text(f, c) === '' && text(parent, c) !== '') f[c] = parent[c];
  for (const [k, v] of Object.entries(parent)) {
    if ((k.startsWith('attr.') || k.includes('@')) && text(f, k) === '' && v !== '') f[k] = v;
  }
  // A simple that is not visible individually has no page: the parent's is where it is sold.
  if (text(parent, 'url_key') !== '') f.url_key = parent.url_key;
  if (text(f, `${DERIVED}price`) === '') f[`${DERIVED}price`] = parent[`${DERIVED}price`];
}

type Held = { item: ReadItem } | { record: SourceRecord; drop?: boolean };

export async function* magento(
  reads: AsyncIterable<ReadItem>,
  ctx: TransformContext,
): AsyncGenerator<ReadItem> {
  const leftOut = new LeftOut();
  let held: Held[] = [];
  let lastParent: { fields: Record<string, unknown>; children: Set<string> } | undefined;
  let file: string | undefined;
  const flush = function* (): Generator<ReadItem> {
    for (const h of held) {
      if ('item' in h) yield h.item;
      else if (!h.drop) {
        leftOut.kept++;
        yield recordItem(h.record);
      }
    }
    held = [];
  };
  const lastWithSku = (sku: string): SourceRecord | undefined => {
    for (let i = held.length - 1; i >= 0; i--) {
      const h = held[i];
      if ('record' in h && text(h.record.fields, 'sku') === sku) return h.record;
    }
    return undefined;
  };
  for await (const item of reads) {
    if (item.type === 'issue') {
      file ??= item.issue.file;
      held.push({ item });
      continue;
    }
    file ??= item.record.file;
    if (item.record.shape !== 'rows') {
      yield* flush();
      yield item;
      continue;
    }
    const raw = item.record;
    leftOut.read++;
    const store = text(raw.fields, 'store_view_code');
    if (store !== '') {
      const target = lastWithSku(text(raw.fields, 'sku'));
      const language = storeLanguage(store);
      if (target && language) {
        for (const c of STORE_TEXTS) {
          const v = text(raw.fields, c);
          if (v !== '') target.fields[`${c}@${language}`] = v;
        }
      } else {
        leftOut.ignored++;
        const issue: Issue = {
          severity: 'warning',
          code: 'store_view_ignored',
          // Not a row of its own (it is no product): a file-level warning that names the row.
          file: raw.file,
          line: raw.line,
          column: 'store_view_code',
          value: store,
          message: target
            ? `row ${raw.row}: store view "${store}" is of a language genser does not know (ja, ko or en store codes are); its texts are not used`
            : `row ${raw.row}: store view row for sku ${text(raw.fields, 'sku')} does not follow that product's own row; it is not used`,
        };
        held.push({ item: { type: 'issue', issue } });
      }
      continue;
    }
    const record = prepared(raw, ctx);
    const type = text(record.fields, 'product_type');
    const sku = text(record.fields, 'sku');
    const disabled = text(record.fields, 'product_online') === '2';
    if (type === 'configurable') {
      const children = childSkus(text(record.fields, 'configurable_variations'));
      for (const h of held) {
        if ('record' in h && children.has(text(h.record.fields, 'sku'))) inherit(h.record, record.fields);
      }
      yield* flush();
      lastParent = { fields: record.fields, children };
      leftOut.add('configurable products (their simples are the products)', record.row);
      // Held (not sent) so its store-view rows find it.
      held.push({ record, drop: true });
      continue;
    }
    const child = type === 'simple' && text(record.fields, 'visibility') === 'Not Visible Individually';
    if (!child || held.length >= MAX_HELD) yield* flush();
    if (child && lastParent?.children.has(sku)) inherit(record, lastParent.fields);
    if (disabled) {
      leftOut.add('disabled products (product_online 2)', record.row);
      held.push({ record, drop: true });
    } else held.push({ record });
  }
  yield* flush();
  if (file !== undefined) yield* leftOut.issues(file);
}
