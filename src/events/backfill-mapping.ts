import { readFileSync } from 'node:fs';
import {
  compileNumberFormat,
  DEFAULT_NUMBER_FORMAT,
  type NumberFormat,
  type NumberFormatSpec,
} from '../map/values.js';
import { errorMessage, UsageError } from '../shared/errors.js';
import { isObject } from '../shared/is-object.js';
import { timeZoneForCountry } from '../time/zones.js';

/**
 * Where each order field comes from in an order export (docs/events.md, "Backfill"): a mapping
 * file in the shape of the product mapping files (`fields`: target -> column), or a preset for a
 * shop's own export (WooCommerce, Shopify), or a preset refined by a mapping file.
 */

export const ORDER_TARGETS = [
  'order_id',
  'time',
  'user_id',
  'member_id',
  'cookie_id',
  'sku',
  'name',
  'price',
  'line_total',
  'currency',
  'quantity',
  'status',
  'cancelled_at',
] as const;

export type OrderTarget = (typeof ORDER_TARGETS)[number];

export interface OrderMapping {
  /** Where it came from, for messages: a file name or `preset shopify`. */
  origin: string;
  /** target -> column name. */
  columns: Partial<Record<OrderTarget, string>>;
  /** No preset nor mapping: the columns come from the export's header (`canonicalOrderColumns`). */
  canonical?: boolean;
  /** IANA zone for times without an offset. */
  zone: string;
  /** Currency when the export has no currency column. */
  currency?: string;
  /** The site address the events come from (`source`, required by contract 2.1). */
  source?: string;
  /** How prices are written (`"number": {"thousands": ","}` as in product mappings). */
  number: NumberFormat;
  /** Status words (lower case) meaning a cancelled or refunded order: cancel_purchase. */
  cancelStatuses: Set<string>;
  /** Status words of orders never paid: no event. */
  skipStatuses: Set<string>;
}

export const DEFAULT_CANCEL_STATUSES = ['cancelled', 'canceled', 'refunded', 'voided'];
export const DEFAULT_SKIP_STATUSES = ['pending', 'failed', 'draft', 'checkout-draft', 'trash'];

/**
 * Presets, by the column names the shops' own exports use:
 * - `woocommerce`: WooCommerce Customer/Order/Coupon Export, "Default CSV - one row per line item"
 *   (status words completed, processing, on-hold, cancelled, refunded, failed, pending);
 * - `shopify`: Shopify admin Orders > Export (one row per line item; order-level columns are
 *   filled on the first row of an order only; Financial Status paid, refunded, voided, ...).
 * Neither export holds a member id distinct from the customer, nor a cookie id.
 */
export const ORDER_PRESETS: Record<string, Partial<Record<OrderTarget, string>>> = {
  woocommerce: {
    order_id: 'order_id',
    time: 'order_date',
    user_id: 'customer_id',
    sku: 'item_sku',
    name: 'item_name',
    line_total: 'item_total',
    quantity: 'item_quantity',
    currency: 'order_currency',
    status: 'status',
  },
  shopify: {
    order_id: 'Name',
    time: 'Created at',
    user_id: 'Email',
    sku: 'Lineitem sku',
    name: 'Lineitem name',
    price: 'Lineitem price',
    quantity: 'Lineitem quantity',
    currency: 'Currency',
    status: 'Financial Status',
    cancelled_at: 'Cancelled at',
  },
};

export const REQUIRED_TARGETS: OrderTarget[] = ['order_id', 'time', 'sku', 'name', 'quantity'];

/**
 * The canonical columns of an order export (docs/events.md, "Canonical order columns"): an export
 * whose header uses them needs no preset or mapping. Each target's accepted spellings, matched
 * case-insensitively, the first found winning.
 */
export const CANONICAL_ORDER_COLUMNS: Record<OrderTarget, readonly string[]> = {
  order_id: ['order_id', 'order_number', 'order_no'],
  time: ['ordered_at', 'order_date', 'created_at'],
  user_id: ['user_id', 'customer_id'],
  member_id: ['member_id'],
  cookie_id: ['cookie_id'],
  sku: ['sku'],
  name: ['name', 'product_name', 'item_name'],
  price: ['price', 'unit_price'],
  line_total: ['line_total'],
  currency: ['currency'],
  quantity: ['quantity', 'qty'],
  status: ['status'],
  cancelled_at: ['cancelled_at', 'canceled_at'],
};

/** The columns of an export's header that carry canonical names; a usage error when some are missing. */
export function canonicalOrderColumns(
  file: string,
  header: readonly string[],
): Partial<Record<OrderTarget, string>> {
  const byLower = new Map<string, string>();
  for (const h of header) if (!byLower.has(h.trim().toLowerCase())) byLower.set(h.trim().toLowerCase(), h);
  const columns: Partial<Record<OrderTarget, string>> = {};
  for (const target of ORDER_TARGETS) {
    const hit = CANONICAL_ORDER_COLUMNS[target].find((name) => byLower.has(name));
    if (hit !== undefined) columns[target] = byLower.get(hit);
  }
  requireColumns(`${file} (canonical order columns)`, columns);
  return columns;
}

function requireColumns(origin: string, columns: Partial<Record<OrderTarget, string>>): void {
  const missing = REQUIRED_TARGETS.filter((t) => !columns[t]);
  if (!columns.price && !columns.line_total) missing.push('price');
  if (!columns.user_id && !columns.member_id) missing.push('user_id');
  if (missing.length === 0) return;
  const spellings = missing.map((t) =>
    t === 'user_id' ? 'user_id/customer_id/member_id' : CANONICAL_ORDER_COLUMNS[t].join('/'),
  );
  throw new UsageError(
    `${origin}: no column for ${missing.join(', ')}`,
    origin.endsWith('(canonical order columns)')
      ? `name the columns ${spellings.join(', ')}, or pass --preset ${Object.keys(ORDER_PRESETS).join('|')} or --mapping FILE (docs/events.md, "Backfill")`
      : 'map them under "fields" in the mapping file, e.g. {"fields": {"order_id": "Order No"}}',
  );
}

export interface OrderMappingOptions {
  /** Path of a mapping file. */
  mapping?: string;
  /** A name of ORDER_PRESETS. */
  preset?: string;
  /** Country code or IANA zone for local times; default KR. */
  country?: string;
}

/** The mapping to use; every problem is a UsageError (exit 2) naming the file and the entry. */
export function loadOrderMapping(options: OrderMappingOptions): OrderMapping {
  const columns: Partial<Record<OrderTarget, string>> = {};
  const origins: string[] = [];
  let country = options.country;
  let currency: string | undefined;
  let source: string | undefined;
  let number = DEFAULT_NUMBER_FORMAT;
  let cancel = DEFAULT_CANCEL_STATUSES;
  let skip = DEFAULT_SKIP_STATUSES;

  let preset = options.preset;
  let json: Record<string, unknown> | undefined;
  if (options.mapping) {
    json = readMappingJson(options.mapping);
    if (preset === undefined && typeof json.preset === 'string') preset = json.preset;
  }
  if (preset !== undefined) {
    const found = ORDER_PRESETS[preset.toLowerCase()];
    if (!found) {
      throw new UsageError(
        `unknown order export preset "${preset}"`,
        `use one of ${Object.keys(ORDER_PRESETS).join(', ')}, or give a mapping file`,
      );
    }
    Object.assign(columns, found);
    origins.push(`preset ${preset.toLowerCase()}`);
  }
  if (json && options.mapping) {
    const file = options.mapping;
    const fields = json.fields ?? {};
    if (!isObject(fields)) throw mappingError(file, '/fields', 'must be an object of target: column');
    for (const [target, spec] of Object.entries(fields)) {
      if (!(ORDER_TARGETS as readonly string[]).includes(target)) {
        throw mappingError(
          file,
          `/fields/${target}`,
          `is not an order field; use one of ${ORDER_TARGETS.join(', ')}`,
        );
      }
      const column = typeof spec === 'string' ? spec : isObject(spec) ? spec.column : undefined;
      if (typeof column !== 'string' || column === '') {
        throw mappingError(file, `/fields/${target}`, 'must be a column name, or {"column": "..."}');
      }
      columns[target as OrderTarget] = column;
    }
    if (json.country !== undefined) country = stringAt(file, json, 'country');
    if (json.timeZone !== undefined) country = stringAt(file, json, 'timeZone');
    if (json.currency !== undefined) currency = stringAt(file, json, 'currency').toUpperCase();
    if (json.source !== undefined) source = stringAt(file, json, 'source');
    if (json.number !== undefined) {
      if (!isObject(json.number))
        throw mappingError(file, '/number', 'must be an object such as {"thousands": ","}');
      try {
        number = compileNumberFormat(json.number as NumberFormatSpec);
      } catch (err) {
        throw mappingError(file, '/number', errorMessage(err));
      }
    }
    if (json.cancelStatuses !== undefined) cancel = wordsAt(file, json, 'cancelStatuses');
    if (json.skipStatuses !== undefined) skip = wordsAt(file, json, 'skipStatuses');
    origins.push(file);
  }
  const canonical = origins.length === 0;
  const origin = canonical ? 'canonical order columns' : origins.join(' + ');
  if (!canonical) requireColumns(origin, columns);
  if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) {
    throw new UsageError(
      `${origin}: currency "${currency}" is not an ISO 4217 code`,
      'e.g. "currency": "KRW"',
    );
  }
  let zone: string;
  try {
    zone = timeZoneForCountry(country ?? 'KR');
  } catch (err) {
    throw new UsageError(
      `${origin}: ${errorMessage(err)}`,
      'give a country code (KR, JP, US) or an IANA zone',
    );
  }
  return {
    origin,
    columns,
    ...(canonical ? { canonical } : {}),
    zone,
    currency,
    source,
    number,
    cancelStatuses: new Set(cancel.map((w) => w.toLowerCase())),
    skipStatuses: new Set(skip.map((w) => w.toLowerCase())),
  };
}

function readMappingJson(file: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(`${file}: cannot read the mapping file (${errorMessage(err)})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file}: the mapping file is not valid JSON (${errorMessage(err)})`);
  }
  if (!isObject(value)) throw mappingError(file, '', 'must be a JSON object with "fields"');
  return value;
}

function mappingError(file: string, pointer: string, message: string): UsageError {
  return new UsageError(
    `${file}: ${pointer || '/'} ${message}`,
    'see docs/events.md, "Backfill", for the mapping',
  );
}

function stringAt(file: string, json: Record<string, unknown>, key: string): string {
  const v = json[key];
  if (typeof v !== 'string' || v === '') throw mappingError(file, `/${key}`, 'must be a non-empty string');
  return v;
}

function wordsAt(file: string, json: Record<string, unknown>, key: string): string[] {
  const v = json[key];
  if (!Array.isArray(v) || !v.every((w) => typeof w === 'string')) {
    throw mappingError(file, `/${key}`, 'must be an array of status words');
  }
  return v as string[];
}
