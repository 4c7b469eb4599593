import type { Issue, ReadItem } from '../../shared/types.js';
import { DERIVED, finalPrice, LeftOut, recordItem, type TransformContext, text } from './common.js';

/**
 * WooCommerce's product CSV exporter (docs/presets.md, "woocommerce"). Row types:
 *   simple, external      one product each (external: its External URL is the product's URL)
 *   variable              stands for its variations: left out, its fields kept for them
 *   variation             takes the fields it lacks from its `Parent` (`id:NN` or the parent's SKU)
 *   grouped               a list of other products with no price of its own: left out, counted
 * Only variable parents' inheritable fields are kept (not whole rows), so memory grows with
 * the number of variable products, not with the file. Derived columns:
 *   genser:price         Sale price while its dates (Date sale price starts/ends) include the run, else Regular price
 *   genser:availability  In stock? 1 / 0 / backorder, or Stock <= 0 without backorders: OutOfStock
 *   genser:categories    Categories, one path per line (`Clothing > Tshirts`; `\,` is a comma in a name)
 *   genser:url           External URL (external products)
 * Published -1 (draft) and 0 (private) rows are left out with a count.
 */
/** The export's columns this transform reads to make its rows (`genser init` lists them as read). */
export const WOOCOMMERCE_READS = [
  'ID',
  'Type',
  'SKU',
  'Published',
  'Parent',
  'Regular price',
  'Sale price',
  'Date sale price starts',
  'Date sale price ends',
  'In stock?',
  'Stock',
  'Backorders allowed?',
  'Categories',
  'External URL',
] as const;

const INHERITED = [
  'Name',
  'Short description',
  'Description',
  'Categories',
  'Tags',
  'Images',
  'Brands',
  'Date sale price starts',
  'Date sale price ends',
  'Sale price',
  'Regular price',
  'In stock?',
  'Stock',
  'Backorders allowed?',
  'GTIN, UPC, EAN, or ISBN',
];

function types(f: Record<string, unknown>): Set<string> {
  return new Set(
    text(f, 'Type')
      .toLowerCase()
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  );
}

function availability(f: Record<string, unknown>): string {
  const inStock = text(f, 'In stock?').toLowerCase();
  if (inStock === 'backorder') return 'PreOrder';
  const stock = text(f, 'Stock');
  const backorders = text(f, 'Backorders allowed?').toLowerCase();
  if (stock !== '' && Number(stock) <= 0 && (backorders === '' || backorders === '0')) return 'OutOfStock';
  if (inStock === '1') return 'InStock';
  if (inStock === '0') return 'OutOfStock';
  return '';
}

/** `A > B, C\, D > E` -> ['A > B', 'C, D > E']. */
export function categoryPaths(raw: string): string[] {
  return raw
    .split(/(?<!\\),/)
    .map((p) => p.replace(/\\,/g, ',').trim())
    .filter(Boolean);
}

export async function* woocommerce(
  reads: AsyncIterable<ReadItem>,
  ctx: TransformContext,
): AsyncGenerator<ReadItem> {
  const leftOut = new LeftOut();
  const parents = new Map<string, Record<string, string>>();
  let file: string | undefined;
  for await (const item of reads) {
    if (item.type === 'issue') {
      file ??= item.issue.file;
      yield item;
      continue;
    }
    const record = item.record;
    file ??= record.file;
    if (record.shape !== 'rows') {
      yield item;
      continue;
    }
    leftOut.read++;
    const f = record.fields;
    const kind = types(f);
    const published = text(f, 'Published');
    if (kind.has('variable')) {
      const kept: Record<string, string> = {};
      for (const c of INHERITED) kept[c] = text(f, c);
      const id = text(f, 'ID');
      if (id !== '') parents.set(`id:${id}`, kept);
      if (text(f, 'SKU') !== '') parents.set(text(f, 'SKU'), kept);
      leftOut.add('variable products (their variations are the products)', record.row);
      continue;
    }
    if (kind.has('grouped')) {
      leftOut.add('grouped products (a list of other products, no price of their own)', record.row);
      continue;
    }
    if (published === '-1') {
      leftOut.add('draft products (Published -1)', record.row);
      continue;
    }
    if (published === '0') {
      leftOut.add(
        kind.has('variation') ? 'disabled variations (Published 0)' : 'private products (Published 0)',
        record.row,
      );
      continue;
    }
    const fields: Record<string, unknown> = { ...f };
    let orphan: Issue | undefined;
    if (kind.has('variation')) {
      const ref = text(f, 'Parent');
      const parent = parents.get(ref);
      if (parent) {
        for (const c of INHERITED) if (text(fields, c) === '' && parent[c] !== '') fields[c] = parent[c];
      } else {
        orphan = {
          severity: 'warning',
          code: 'parent_not_found',
          file: record.file,
          row: record.row,
          line: record.line,
          column: 'Parent',
          value: ref,
          message: `variation's parent ${ref === '' ? '(empty)' : ref} is not among the variable products read before it; its own fields are used as they are`,
        };
      }
    }
    fields[`${DERIVED}price`] = finalPrice(
      text(fields, 'Regular price'),
      text(fields, 'Sale price'),
      text(fields, 'Date sale price starts'),
      text(fields, 'Date sale price ends'),
      ctx.runDate,
    );
    fields[`${DERIVED}availability`] = availability(fields);
    fields[`${DERIVED}categories`] = categoryPaths(text(fields, 'Categories')).join('\n');
    fields[`${DERIVED}url`] = kind.has('external') ? text(fields, 'External URL') : '';
    if (orphan) yield { type: 'issue', issue: orphan };
    leftOut.kept++;
    yield recordItem({ ...record, fields });
  }
  if (file !== undefined) yield* leftOut.issues(file);
}
