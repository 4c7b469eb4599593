import type { MapProblem } from '../map/map-row.js';
import type { Plan } from '../map/plan.js';
import { cappedNote, checkSchema, DETAIL_LIMITS, type ViewSize } from '../schema/bounded.js';
import { gtinValid } from '../schema/checks.js';
import { getAllErrorsValidator } from '../schema/schemas.js';
import { isObject } from '../shared/is-object.js';
import type { LegacyKind, PayloadFormat } from '../shared/types.js';
import { planAccepts } from './plan-schema.js';
import { fieldPath, type SourceLookup, translateErrors, withoutIndices } from './translate.js';

/**
 * Validates one built payload: the bundled JSON Schema (structure, types, enums, formats),
 * then what a schema cannot say (GTIN check digit, date order, sale price <= price), then the
 * recommended fields (warnings; errors under --strict).
 */
export function schemaNameFor(format: PayloadFormat, kind: LegacyKind): string {
  if (format === 'standard') return 'standard-product';
  return kind === 'products' ? 'legacy-product' : kind === 'contents' ? 'legacy-content' : 'legacy-filter';
}

/**
 * Adds the payload's problems to `out` (the row's problems so far: no array per row for them).
 * `plan`: the mapping plan that built it, which proves part of the schema (plan-schema.ts);
 * absent for a ready-made payload.
 */
export type PayloadValidator = (
  payload: Record<string, unknown>,
  lookup: SourceLookup,
  out: MapProblem[],
  plan?: Plan,
  /** At most this large (a product built from a mapped row: src/payload/standard.ts, `builtSize`). */
  size?: ViewSize,
) => void;

/** The source column of a payload path, looked up only when an issue is reported. */
function columnOf(lookup: SourceLookup, path: string): string | undefined {
  return lookup.columnIsPath ? path : lookup.columnsByPath.get(path);
}

const GTIN_SHAPE = /^(\d{8}|\d{12,14})$/;

/** Whether instant a is not before b; same-shaped UTC strings compare as text (no parsing per row). */
function notBefore(a: string, b: string): boolean {
  if (a.length === b.length && a.endsWith('Z') && b.endsWith('Z')) return a >= b;
  const x = Date.parse(a);
  const y = Date.parse(b);
  return !Number.isNaN(x) && !Number.isNaN(y) && x >= y;
}

function crossStandard(p: Record<string, unknown>, lookup: SourceLookup, out: MapProblem[], strict: boolean) {
  const offers = isObject(p.offers) ? p.offers : undefined;
  if (offers) {
    const gtin = offers.gtin;
    if (typeof gtin === 'string' && GTIN_SHAPE.test(gtin) && !gtinValid(gtin)) {
      out.push({
        code: 'gtin',
        field: 'offers.gtin',
        column: columnOf(lookup, 'offers.gtin'),
        value: gtin,
        message: `offers.gtin ${gtin} has a wrong check digit`,
        hint: 'check the number against the barcode; a typo usually changes the last digit',
      });
    }
    const starts = offers.availabilityStarts;
    const ends = offers.availabilityEnds;
    if (typeof starts === 'string' && typeof ends === 'string' && notBefore(starts, ends)) {
      out.push({
        code: 'date_order',
        field: 'offers.availabilityEnds',
        column: columnOf(lookup, 'offers.availabilityEnds'),
        value: `${offers.availabilityStarts} .. ${offers.availabilityEnds}`,
        message: 'offers.availabilityStarts must be before offers.availabilityEnds',
        hint: 'the sale ends before it starts: check both dates and their time zone',
      });
    }
  }
  const severity = strict ? 'error' : 'warning';
  const categories = Array.isArray(p.category) ? p.category : isObject(p.category) ? [p.category] : [];
  if (categories.some((c) => isObject(c) && c.codeValue === undefined)) {
    out.push({
      severity,
      code: 'recommended',
      field: 'category.codeValue',
      column: columnOf(lookup, 'category.codeValue'),
      message: 'category code (category.codeValue) is recommended but missing',
      hint: 'add a category_code column with one code per category name',
    });
  }
  if (p.url === undefined) {
    const from = columnOf(lookup, 'url');
    out.push({
      severity,
      code: 'recommended',
      field: 'url',
      column: from,
      message: 'product page url is recommended but missing',
      hint: from
        ? `the ${from} column is empty in this row`
        : 'add a url column (absolute http(s) address of the product page)',
    });
  }
}

function crossLegacy(
  p: Record<string, unknown>,
  kind: LegacyKind,
  lookup: SourceLookup,
  out: MapProblem[],
  strict: boolean,
) {
  const price = isObject(p.priceInfo) ? p.priceInfo : undefined;
  if (
    price &&
    typeof price.price === 'number' &&
    typeof price.salePrice === 'number' &&
    price.salePrice > price.price
  ) {
    out.push({
      code: 'sale_price',
      field: 'priceInfo.salePrice',
      column: columnOf(lookup, 'priceInfo.salePrice'),
      value: `${price.salePrice} > ${price.price}`,
      message: `priceInfo.salePrice (${price.salePrice}) must not exceed priceInfo.price (${price.price})`,
      hint: 'price is the regular price, salePrice the price actually charged',
    });
  }
  const display = isObject(p.display) ? p.display : undefined;
  if (
    display &&
    typeof display.start === 'number' &&
    typeof display.end === 'number' &&
    display.start > display.end
  ) {
    out.push({
      code: 'date_order',
      field: 'display.end',
      column: columnOf(lookup, 'display.end'),
      value: `${display.start} > ${display.end}`,
      message: 'display.start must not be after display.end',
    });
  }
  if (kind !== 'products') return;
  const severity = strict ? 'error' : 'warning';
  if (p.isInStock === undefined) {
    out.push({
      severity,
      code: 'recommended',
      field: 'isInStock',
      column: columnOf(lookup, 'isInStock'),
      message: 'isInStock is recommended but missing (stock status is applied immediately by the service)',
      hint: 'add an isInStock column (true/false)',
    });
  }
  const image = isObject(p.image) ? p.image : undefined;
  if (image && image.productUrl === undefined) {
    out.push({
      severity,
      code: 'recommended',
      field: 'image.productUrl',
      column: columnOf(lookup, 'image.productUrl'),
      message: 'image.productUrl (product page URL) is recommended but missing',
      hint: 'add an image.productUrl column',
    });
  }
}

/** The schema's problems with one payload, at most DETAIL_LIMITS.errors of them, and a note when capped. */
function schemaProblems(
  name: string,
  payload: Record<string, unknown>,
  lookup: SourceLookup,
  out: MapProblem[],
  plan: Plan | undefined,
  size: ViewSize | undefined,
): void {
  const check = checkSchema(name, payload, DETAIL_LIMITS, plan && planAccepts(plan, name), size);
  if (check.valid) return;
  for (const p of translateErrors(check.errors, payload, lookup)) out.push(p);
  if (check.capped) {
    out.push({
      severity: 'warning',
      code: 'problems_capped',
      field: '',
      message: `more problems of this row may be unlisted: ${cappedNote(check.capped, DETAIL_LIMITS, (p) => withoutIndices(fieldPath(p)))}`,
      hint: 'fix the problems listed and validate again',
    });
  }
}

export function payloadValidator(format: PayloadFormat, kind: LegacyKind, strict: boolean): PayloadValidator {
  const name = schemaNameFor(format, kind);
  getAllErrorsValidator(name); // compiled now: an unknown name fails at once, not on the first row
  return (payload, lookup, out, plan, size) => {
    schemaProblems(name, payload, lookup, out, plan, size);
    if (format === 'standard') crossStandard(payload, lookup, out, strict);
    else crossLegacy(payload, kind, lookup, out, strict);
  };
}
