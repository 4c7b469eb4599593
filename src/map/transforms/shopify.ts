import type { ReadItem, SourceRecord } from '../../shared/types.js';
import { DERIVED, LeftOut, recordItem, type TransformContext, text } from './common.js';

/**
 * Shopify's product CSV (docs/presets.md, "shopify"): a product's rows share its `Handle`; the
 * first carries the product's fields, the rows after it only a variant's fields or one more
 * image. One product's rows are held at a time, then one record per variant comes out with the
 * product's fields carried down and these derived columns:
 *   genser:sku           Variant SKU; else the handle (one variant) or handle-option-values
 *   genser:name          Title, plus the variant's option values when there are several variants
 *   genser:availability  Variant Inventory Qty > 0, or policy `continue`: InStock; else OutOfStock
 *   genser:images        the variant's image, then the product's images by Image Position, one per line
 * Draft, archived and unpublished products are left out with a count.
 */
/** The export's columns this transform reads to make its rows (`genser init` lists them as read). */
export const SHOPIFY_READS = [
  'Handle',
  'Title',
  'Published',
  'Status',
  'Option1 Value',
  'Option2 Value',
  'Option3 Value',
  'Variant SKU',
  'Variant Price',
  'Variant Barcode',
  'Variant Inventory Qty',
  'Variant Inventory Policy',
  'Variant Image',
  'Image Src',
  'Image Position',
] as const;

const PRODUCT_COLUMNS = new Set([
  'Title',
  'Body (HTML)',
  'Vendor',
  'Product Category',
  'Type',
  'Tags',
  'Published',
  'Option1 Name',
  'Option2 Name',
  'Option3 Name',
  'Gift Card',
  'SEO Title',
  'SEO Description',
  'Status',
]);

function productLevel(column: string): boolean {
  return (
    PRODUCT_COLUMNS.has(column) || column.startsWith('Google Shopping /') || column.includes('metafields')
  );
}

function isVariantRow(f: Record<string, unknown>): boolean {
  return (
    text(f, 'Variant SKU') !== '' ||
    text(f, 'Variant Price') !== '' ||
    text(f, 'Option1 Value') !== '' ||
    text(f, 'Variant Barcode') !== ''
  );
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-|-$/g, '');

function optionValues(f: Record<string, unknown>): string[] {
  return ['Option1 Value', 'Option2 Value', 'Option3 Value']
    .map((c) => text(f, c))
    .filter((v) => v !== '' && v !== 'Default Title');
}

/** Why a product is not sent, or undefined when it is. */
function leftOutReason(product: Record<string, unknown>): string | undefined {
  const status = text(product, 'Status').toLowerCase();
  if (status === 'draft') return 'draft products (Status draft)';
  if (status === 'archived') return 'archived products (Status archived)';
  if (text(product, 'Published').toLowerCase() === 'false') return 'unpublished products (Published false)';
  return undefined;
}

function availability(f: Record<string, unknown>): string {
  const qty = Number(text(f, 'Variant Inventory Qty'));
  if (text(f, 'Variant Inventory Policy').toLowerCase() === 'continue') return 'InStock';
  if (text(f, 'Variant Inventory Qty') === '' || Number.isNaN(qty)) return '';
  return qty > 0 ? 'InStock' : 'OutOfStock';
}

/** One product's rows -> its variants' records. */
function variantsOf(rows: SourceRecord[], leftOut: LeftOut): SourceRecord[] {
  const product = rows[0].fields;
  const reason = leftOutReason(product);
  const variantRows = rows.filter((r) => isVariantRow(r.fields));
  if (reason) {
    leftOut.add(reason, rows[0].row, rows.length);
    return [];
  }
  const images = rows
    .map((r) => ({ src: text(r.fields, 'Image Src'), pos: Number(text(r.fields, 'Image Position')) || 0 }))
    .filter((i) => i.src !== '')
    .sort((a, b) => a.pos - b.pos)
    .map((i) => i.src);
  const handle = text(product, 'Handle');
  const title = text(product, 'Title');
  const several = variantRows.length > 1;
  // Image-only rows of a product that has no variant row at all still make the product itself.
  const sources = variantRows.length > 0 ? variantRows : [rows[0]];
  return sources.map((r) => {
    const fields: Record<string, unknown> = { ...r.fields };
    for (const [column, value] of Object.entries(product)) {
      if (productLevel(column) && text(fields, column) === '') fields[column] = value;
    }
    const options = optionValues(r.fields);
    const sku =
      text(r.fields, 'Variant SKU') ||
      (several && options.length > 0 ? `${handle}-${slug(options.join(' '))}` : handle);
    const own = text(r.fields, 'Variant Image');
    fields[`${DERIVED}sku`] = sku;
    fields[`${DERIVED}name`] = several && options.length > 0 ? `${title} - ${options.join(' / ')}` : title;
    fields[`${DERIVED}availability`] = availability(r.fields);
    fields[`${DERIVED}images`] = [...new Set(own ? [own, ...images] : images)].join('\n');
    return { ...r, fields };
  });
}

export async function* shopify(
  reads: AsyncIterable<ReadItem>,
  _ctx: TransformContext,
): AsyncGenerator<ReadItem> {
  const leftOut = new LeftOut();
  let group: SourceRecord[] = [];
  let held: ReadItem[] = [];
  let file: string | undefined;
  const flush = function* (): Generator<ReadItem> {
    yield* held;
    held = [];
    if (group.length > 0) {
      for (const r of variantsOf(group, leftOut)) {
        leftOut.kept++;
        yield recordItem(r);
      }
    }
    group = [];
  };
  for await (const item of reads) {
    if (item.type === 'issue') {
      file ??= item.issue.file;
      // Issues of the product being collected stay with it; others go out at once.
      if (group.length > 0 && item.issue.row !== undefined) held.push(item);
      else yield item;
      continue;
    }
    const record = item.record;
    file ??= record.file;
    if (record.shape !== 'rows') {
      yield* flush();
      yield item;
      continue;
    }
    const handle = text(record.fields, 'Handle');
    if (group.length > 0 && (handle === '' || handle !== text(group[0].fields, 'Handle'))) yield* flush();
    leftOut.read++;
    group.push(record);
  }
  yield* flush();
  if (file !== undefined) yield* leftOut.issues(file);
}
