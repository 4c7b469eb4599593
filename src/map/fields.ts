import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemasDir } from '../shared/paths.js';
import type { LegacyKind, PayloadFormat } from '../shared/types.js';

/**
 * The target fields a column can feed, per payload format: the canonical columns of
 * docs/architecture.md section 6. Standard targets are friendly names; legacy targets are the dotted
 * paths of contract 2.8, read from the legacy schemas themselves so the two cannot drift.
 */
export type FieldKind =
  /** one string */
  | 'text'
  /** one string per language (`name@ko`, `name@en`) */
  | 'mltext'
  /** a list of strings */
  | 'list'
  /** a list of strings per language (category names) */
  | 'mllist'
  | 'number'
  | 'integer'
  | 'boolean'
  /** a date, written as ISO 8601 UTC */
  | 'date'
  /** a date or epoch milliseconds, written as epoch milliseconds */
  | 'epoch'
  /** InStock | OutOfStock | PreOrder, common spellings accepted */
  | 'availability'
  /** upper-cased code */
  | 'code'
  /** a product identifier (SKU, MPN): text, with Excel's damage named (docs/feeds.md, "Identifiers") */
  | 'identifier'
  /** a GTIN: digits, with Excel's damage named (scientific notation, lost leading zeros) */
  | 'gtin';

export interface FieldDef {
  /** Name used in mapping files and as canonical column. */
  target: string;
  kind: FieldKind;
  /** Path of the value in the payload, for messages (`offers.price`). */
  path: string;
  /** Missing: a warning (an error under --strict). */
  recommended?: boolean;
}

const STANDARD: FieldDef[] = [
  { target: 'sku', kind: 'identifier', path: 'sku' },
  { target: 'offer_sku', kind: 'identifier', path: 'offers.sku' },
  { target: 'name', kind: 'mltext', path: 'name' },
  { target: 'brand_id', kind: 'text', path: 'brand.@id' },
  { target: 'brand_name', kind: 'mltext', path: 'brand.name' },
  { target: 'category_name', kind: 'mllist', path: 'category.name' },
  { target: 'category_code', kind: 'list', path: 'category.codeValue', recommended: true },
  { target: 'description', kind: 'mltext', path: 'description' },
  { target: 'price', kind: 'number', path: 'offers.price' },
  { target: 'currency', kind: 'code', path: 'offers.priceCurrency' },
  { target: 'availability', kind: 'availability', path: 'offers.availability' },
  { target: 'availability_starts', kind: 'date', path: 'offers.availabilityStarts' },
  { target: 'availability_ends', kind: 'date', path: 'offers.availabilityEnds' },
  { target: 'gtin', kind: 'gtin', path: 'offers.gtin' },
  { target: 'mpn', kind: 'identifier', path: 'offers.mpn' },
  { target: 'image_urls', kind: 'list', path: 'offers.image' },
  { target: 'url', kind: 'mltext', path: 'url', recommended: true },
  { target: 'seo_title', kind: 'text', path: 'additionalProperty.seo_title' },
  { target: 'html', kind: 'text', path: 'additionalProperty.html' },
  { target: 'hs_code', kind: 'text', path: 'additionalProperty.hsCode' },
  { target: 'sustainability_tags', kind: 'list', path: 'additionalProperty.sustainabilityTags' },
  // Fields of the contract's sample body whose shape the contract gives (2.7, docs/feeds.md).
  { target: 'positive_notes', kind: 'mltext', path: 'positiveNotes' },
  { target: 'material', kind: 'mltext', path: 'material' },
  { target: 'unit_price', kind: 'number', path: 'offers.priceSpecification.price' },
  { target: 'unit_code', kind: 'text', path: 'offers.priceSpecification.unitCode' },
  { target: 'inventory_level', kind: 'number', path: 'offers.inventoryLevel.value' },
  { target: 'seo_description', kind: 'mltext', path: 'description.additionalProperty.seo_description' },
  // Fields of the sample body without a shape in the table (docs/feeds.md, "Sample-only fields").
  { target: 'item_condition', kind: 'text', path: 'itemCondition' },
  { target: 'has_adult_consideration', kind: 'text', path: 'hasAdultConsideration' },
  { target: 'country_of_origin', kind: 'code', path: 'countryOfOrigin.name' },
  { target: 'brand_logo', kind: 'text', path: 'brand.logo' },
  { target: 'category_position', kind: 'list', path: 'category.position' },
  { target: 'shipping_weight', kind: 'number', path: 'offers.shippingDetails.weight.value' },
  { target: 'shipping_weight_unit', kind: 'text', path: 'offers.shippingDetails.weight.unitCode' },
  { target: 'image_content_size', kind: 'list', path: 'offers.image.contentSize' },
  { target: 'image_width', kind: 'list', path: 'offers.image.width' },
  { target: 'image_height', kind: 'list', path: 'offers.image.height' },
];

/** Legacy fields worth a warning when absent, though the contract marks them optional. */
const LEGACY_RECOMMENDED = new Set(['isInStock', 'image.productUrl']);

type JsonSchema = Record<string, unknown>;

function loadSchema(name: string): JsonSchema {
  return JSON.parse(readFileSync(join(schemasDir, `${name}.schema.json`), 'utf8')) as JsonSchema;
}

/** Follows `$ref`s of the shapes used in our own schemas (local, sibling file, common defs). */
function resolve(schema: JsonSchema, root: JsonSchema, docs: Map<string, JsonSchema>): JsonSchema {
  let s = schema;
  while (typeof s.$ref === 'string') {
    const [file, pointer = ''] = (s.$ref as string).split('#');
    const base = file
      ? file.replace(/^https:\/\/genser\.dev\/schemas\//, '').replace(/\.schema\.json$/, '')
      : '';
    let doc = root;
    if (base) {
      let loaded = docs.get(base);
      if (!loaded) {
        loaded = loadSchema(base);
        docs.set(base, loaded);
      }
      doc = loaded;
    }
    let node: unknown = doc;
    for (const part of pointer.split('/').filter(Boolean)) node = (node as JsonSchema)[part];
    root = doc;
    s = node as JsonSchema;
  }
  return s;
}

function kindOf(path: string, schema: JsonSchema, ref: string | undefined): FieldKind {
  if (path === 'createdAt') return 'date';
  if (path === 'createdAtEpochMilli' || path === 'display.start' || path === 'display.end') return 'epoch';
  if (ref?.endsWith('currencyCode')) return 'code';
  if (schema.type === 'number') return 'number';
  if (schema.type === 'integer') return 'integer';
  if (schema.type === 'boolean') return 'boolean';
  if (schema.type === 'array') return 'list';
  return 'text';
}

function legacyFields(kind: LegacyKind): FieldDef[] {
  const name =
    kind === 'products' ? 'legacy-product' : kind === 'contents' ? 'legacy-content' : 'legacy-filter';
  const root = loadSchema(name);
  const docs = new Map<string, JsonSchema>([[name, root]]);
  const out: FieldDef[] = [];
  const walk = (schema: JsonSchema, prefix: string, inArray: boolean) => {
    const props = (resolve(schema, root, docs).properties ?? {}) as Record<string, JsonSchema>;
    for (const [key, raw] of Object.entries(props)) {
      const path = prefix ? `${prefix}.${key}` : key;
      if (path === 'customs') continue; // customs.<name> columns, handled by the plan
      const sub = resolve(raw, root, docs);
      if (sub.type === 'object' && sub.properties) {
        walk(raw, path, inArray);
      } else if (
        sub.type === 'array' &&
        sub.items &&
        resolve(sub.items as JsonSchema, root, docs).type === 'object'
      ) {
        walk(sub.items as JsonSchema, path, true);
      } else {
        const fieldKind = kindOf(path, sub, raw.$ref as string | undefined);
        out.push({
          target: path,
          kind: inArray ? 'list' : fieldKind,
          path,
          recommended: LEGACY_RECOMMENDED.has(path) || undefined,
        });
      }
    }
  };
  walk(root, '', false);
  return out;
}

export interface FieldSet {
  format: PayloadFormat;
  kind: LegacyKind;
  fields: FieldDef[];
  byTarget: Map<string, FieldDef>;
  /** Legacy products: `customs.<name>` columns are allowed. */
  customs: boolean;
}

const cache = new Map<string, FieldSet>();

export function fieldSet(format: PayloadFormat, kind: LegacyKind = 'products'): FieldSet {
  const key = format === 'standard' ? 'standard' : `legacy-${kind}`;
  let set = cache.get(key);
  if (!set) {
    const fields = format === 'standard' ? STANDARD : legacyFields(kind);
    set = {
      format,
      kind,
      fields,
      byTarget: new Map(fields.map((f) => [f.target, f])),
      customs: format === 'legacy' && kind === 'products',
    };
    cache.set(key, set);
  }
  return set;
}

/** Standard payload paths accepted as mapping targets too (`offers.price` for `price`). */
export const STANDARD_PATH_ALIASES: Record<string, string> = Object.fromEntries(
  STANDARD.filter((f) => !f.path.includes('additionalProperty')).map((f) => [f.path, f.target]),
);

export function findField(set: FieldSet, target: string): FieldDef | undefined {
  const direct = set.byTarget.get(target);
  if (direct) return direct;
  if (set.format === 'standard') {
    const alias = STANDARD_PATH_ALIASES[target];
    return alias ? set.byTarget.get(alias) : undefined;
  }
  if (set.customs && target.startsWith('customs.') && target.length > 8) {
    return { target, kind: 'list', path: target };
  }
  return undefined;
}
