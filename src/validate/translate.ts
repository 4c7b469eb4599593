import type { ErrorObject } from 'ajv';
import { setFlag, TARGETS_BY_PATH } from '../map/fill-hints.js';
import type { MapProblem } from '../map/map-row.js';
import { shorten } from '../map/values.js';
import { tokenText } from '../shared/json-pointer.js';

/**
 * ajv's errors, in words a merchant understands: which field, what was wrong with the value,
 * and where it came from (the source column) with a hint. One problem per field location.
 */
export interface SourceLookup {
  /** Payload path without indices (`offers.price`, `category.codeValue`) -> source column label. */
  columnsByPath: ReadonlyMap<string, string>;
  /** When true, JSON keys are the columns: the column of a field is its own path. */
  columnIsPath?: boolean;
  /** Field paths (no indices) whose value already failed to parse: do not report them again. */
  skip?: ReadonlySet<string>;
}

const INDEX = /\.\d+(?=\.|$)/g;

/** `/category/0/name` -> `category[0].name` */
export function fieldPath(instancePath: string): string {
  if (instancePath === '') return '';
  return instancePath
    .slice(1)
    .split('/')
    .map(tokenText)
    .map((p, i) => (/^\d+$/.test(p) ? `[${p}]` : i === 0 ? p : `.${p}`))
    .join('');
}

/** `category[0].name` -> `category.name` */
export function withoutIndices(path: string): string {
  return path.replace(/\[\d+\]/g, '').replace(INDEX, '');
}

function valueAt(data: unknown, instancePath: string): unknown {
  let node = data;
  if (instancePath === '') return node;
  for (const raw of instancePath.slice(1).split('/')) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[tokenText(raw)];
  }
  return node;
}

/** Longest known prefix of the path: `offers.image.contentUrl` -> column of `offers.image`. */
export function columnFor(path: string, lookup: SourceLookup): string | undefined {
  if (lookup.columnIsPath) return path || undefined;
  let p = path;
  for (;;) {
    const hit = lookup.columnsByPath.get(p);
    if (hit) return hit;
    const dot = p.lastIndexOf('.');
    if (dot < 0) return undefined;
    p = p.slice(0, dot);
  }
}

/** Fields a required-error names, as canonical CSV column hints. */
const COLUMN_HINTS: Record<string, string> = {
  sku: 'sku',
  name: 'name (or name@ko, name@en, name@ja)',
  category: 'category_name',
  'category.name': 'category_name',
  brand: 'brand_id and brand_name',
  'brand.@id': 'brand_id',
  'brand.name': 'brand_name',
  description: 'description (or description@ko, ...)',
  'offers.sku': 'sku or offer_sku',
  'offers.gtin': 'gtin',
  'offers.mpn': 'mpn',
  'offers.price': 'price',
  'offers.priceCurrency': 'currency',
  'offers.availability': 'availability',
  'offers.availabilityStarts': 'availability_starts',
  'offers.availabilityEnds': 'availability_ends',
  'offers.image': 'image_urls',
};

/** `, or --set currency=KRW for every row` where one value can serve every row. */
function settable(path: string): string {
  // The run's country is not known here: the currency is named by example.
  const flags = (TARGETS_BY_PATH[path] ?? []).map((t) =>
    t === 'currency' ? '--set currency=CODE (KRW, USD, ...)' : setFlag(t, 'KR'),
  );
  if (flags.length === 0 || flags.some((f) => f === undefined)) return '';
  return `, or ${flags.join(' ')} for every row`;
}

function defName(e: ErrorObject): string | undefined {
  const m = /\$defs\/([A-Za-z]+)\/[^/]+$/.exec(e.schemaPath);
  return m?.[1];
}

function describeType(t: unknown): string {
  const types = Array.isArray(t) ? t : [t];
  return types
    .map((x) =>
      x === 'string'
        ? 'text'
        : x === 'array'
          ? 'a list'
          : x === 'object'
            ? 'an object'
            : x === 'integer'
              ? 'a whole number'
              : x === 'number'
                ? 'a number'
                : x === 'boolean'
                  ? 'true or false'
                  : String(x),
    )
    .join(' or ');
}

/** One schema error, worded for a merchant: code, message and hint. */
function wording(
  e: ErrorObject,
  at: { field: string; bare: string; column: string | undefined; value: unknown; shown: string | undefined },
  lookup: SourceLookup,
): { code: string; message: string; hint?: string } {
  const { field, bare, column, value, shown } = at;
  const def = defName(e);
  let code = e.keyword;
  let message: string;
  let hint: string | undefined;
  switch (e.keyword) {
    case 'required': {
      code = 'required';
      message = `${field} is required but missing`;
      if (!column || column === '(constant)') {
        const canonical = COLUMN_HINTS[bare];
        hint = lookup.columnIsPath
          ? `add "${field.split('.').pop()}" to the object`
          : canonical
            ? `add a column named ${canonical}, or map one of your columns (or a constant) to it in the mapping file${settable(bare)}`
            : 'map a column or a constant to it in the mapping file';
      } else {
        hint = column.includes(', ')
          ? `the columns ${column} are all empty in this row`
          : `the ${column} column is empty in this row`;
      }
      break;
    }
    case 'additionalProperties':
      code = 'unknown_field';
      message = `${field} is not a field of this format`;
      hint = 'check the spelling against contract section 2.8';
      break;
    case 'type':
      code = 'type';
      message = `${field} must be ${describeType((e.params as { type: unknown }).type)}; got \`${shown}\``;
      break;
    case 'enum':
      if (def === 'currencyCode') {
        code = 'currency';
        message = `${field} must be an ISO 4217 currency code such as KRW, USD or JPY; got \`${shown}\``;
      } else if (def === 'languageTag') {
        code = 'language';
        message = `${field} must be the language tag ko, en or ja; got \`${shown}\``;
      } else if (def === 'isoLanguage') {
        code = 'language';
        message = `${field} must be an ISO 639-1 language code (two lower-case letters: ko, en, ja, zh, fr, ...); got \`${shown}\``;
      } else {
        const allowed = (e.params as { allowedValues: unknown[] }).allowedValues;
        message = `${field} must be one of ${allowed.join(', ')}; got \`${shown}\``;
      }
      break;
    case 'const':
      message = `${field} must be \`${String((e.params as { allowedValue: unknown }).allowedValue)}\`; got \`${shown}\``;
      break;
    case 'pattern':
    case 'format':
      if (def === 'httpUrl') {
        code = 'url';
        message = `${field} must be an absolute http(s) URL; got \`${shown}\``;
        if (typeof value === 'string' && !/^[a-z]+:/i.test(value)) {
          hint = 'for relative paths, declare a base URL with "prefix" in the mapping file';
        }
      } else if (def === 'utcDateTime') {
        code = 'date';
        message = `${field} must be an ISO 8601 UTC date-time (2026-03-01T00:00:00Z); got \`${shown}\``;
      } else if (def === 'gtin') {
        code = 'gtin';
        message = `${field} must be a GTIN of 8, 12, 13 or 14 digits; got \`${shown}\``;
      } else if (def === 'nonEmptyString') {
        code = 'empty';
        message = `${field} must not be empty`;
      } else {
        message = `${field} has an invalid format; got \`${shown}\``;
      }
      break;
    case 'minLength':
      code = 'empty';
      message = `${field} must not be empty`;
      break;
    case 'minItems':
      code = 'empty';
      message = `${field} must have at least one entry`;
      break;
    case 'exclusiveMinimum':
    case 'minimum':
    case 'maximum':
      code = 'range';
      message = `${field} must be ${e.keyword === 'maximum' ? 'at most' : e.keyword === 'minimum' ? 'at least' : 'greater than'} ${(e.params as { limit: number }).limit}; got \`${shown}\``;
      break;
    default:
      message = `${field} ${e.message ?? 'is invalid'}`;
  }
  return { code, message, hint };
}

export function translateErrors(
  errors: readonly ErrorObject[],
  data: unknown,
  lookup: SourceLookup,
): MapProblem[] {
  const out: MapProblem[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    if (e.keyword === 'if' || e.keyword === 'anyOf' || e.keyword === 'oneOf') continue;
    let instancePath = e.instancePath;
    if (e.keyword === 'required')
      instancePath += `/${(e.params as { missingProperty: string }).missingProperty}`;
    if (e.keyword === 'additionalProperties') {
      instancePath += `/${(e.params as { additionalProperty: string }).additionalProperty}`;
    }
    if (seen.has(instancePath)) continue;
    seen.add(instancePath);
    const field = fieldPath(instancePath);
    const bare = withoutIndices(field);
    if (lookup.skip?.has(bare)) continue;
    if (e.keyword === 'required' && lookup.skip) {
      // A list whose items failed parsing (e.g. every image URL) counts as already reported.
      let parentSkipped = false;
      for (const s of lookup.skip) if (bare.startsWith(`${s}.`)) parentSkipped = true;
      if (parentSkipped) continue;
    }
    const column = columnFor(bare, lookup);
    const value =
      e.keyword === 'required' || e.keyword === 'additionalProperties'
        ? undefined
        : valueAt(data, e.instancePath);
    const shown = value === undefined ? undefined : shorten(value);
    const { code, message, hint } = wording(e, { field, bare, column, value, shown }, lookup);
    out.push({ code, column, field, value: shown, message, hint });
  }
  return out;
}
