import type { ErrorObject } from 'ajv';
import { type Capped, cappedNote, checkSchema, DETAIL_LIMITS } from '../schema/bounded.js';
import { getValidator } from '../schema/schemas.js';
import { pointerToken } from '../shared/json-pointer.js';

/**
 * Error answers: `application/problem+json` (RFC 9457) with `errors: [{index, sku, pointer,
 * message}]` (docs/architecture.md section 3). `index` is the item's position in `@graph` or the legacy
 * array, so a client can reject exactly those rows and re-send the rest.
 */
export interface ItemError {
  index: number | null;
  sku: string | null;
  pointer: string;
  message: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: ItemError[];
}

const TYPE_BASE = 'https://genser.dev/problems/';

export function problem(
  status: number,
  slug: string,
  title: string,
  detail: string,
  errors?: ItemError[],
): Problem {
  const p: Problem = { type: `${TYPE_BASE}${slug}`, title, status, detail };
  if (errors) p.errors = errors;
  return p;
}

/** At most this many item errors are listed in one answer; `detail` says how many there were. */
export const MAX_LISTED_ERRORS = 1000;

/** One readable sentence for one Ajv error. */
export function describeAjvError(e: ErrorObject): { pointer: string; message: string } {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return {
        pointer: `${e.instancePath}/${pointerToken(String(p.missingProperty))}`,
        message: `missing required property "${String(p.missingProperty)}"`,
      };
    case 'additionalProperties':
      return {
        pointer: `${e.instancePath}/${pointerToken(String(p.additionalProperty))}`,
        message: `unknown property "${String(p.additionalProperty)}"`,
      };
    case 'const':
      return { pointer: e.instancePath, message: `must be ${JSON.stringify(p.allowedValue)}` };
    case 'enum': {
      const allowed = p.allowedValues as unknown[];
      // The ISO 4217 list (products and events share it) is too long to print.
      if (e.schemaPath.includes('currencyCode'))
        return {
          pointer: e.instancePath,
          message: 'must be an ISO 4217 currency code such as KRW, USD or JPY',
        };
      return {
        pointer: e.instancePath,
        message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}`,
      };
    }
    default:
      return { pointer: e.instancePath, message: e.message ?? e.keyword };
  }
}

/**
 * Ajv errors of a whole body -> item errors. `itemsAt` is the pointer prefix of the item array
 * (`/@graph` for standard bodies, `` for legacy arrays, null for single events); errors outside
 * it get `index: null`. `pointerPrefix` is put before each Ajv path (for items validated one by
 * one). Duplicates (same pointer and message) are listed once.
 */
export function itemErrors(
  errors: readonly ErrorObject[],
  itemsAt: string | null,
  skuOf: (index: number) => string | null,
  pointerPrefix = '',
): ItemError[] {
  const out: ItemError[] = [];
  const seen = new Set<string>();
  const prefix = itemsAt === null ? null : `${itemsAt}/`;
  for (const e of errors) {
    const described = describeAjvError(e);
    const pointer = pointerPrefix + described.pointer;
    const message = described.message;
    let index: number | null = null;
    if (prefix !== null && pointer.startsWith(prefix)) {
      const rest = pointer.slice(prefix.length);
      const end = rest.indexOf('/');
      const n = Number(end === -1 ? rest : rest.slice(0, end));
      if (Number.isInteger(n)) index = n;
    }
    const key = `${pointer}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ index, sku: index === null ? null : skuOf(index), pointer, message });
  }
  return out;
}

/** A capped item's note, lists named by pointer. */
export function itemCappedNote(capped: Capped): string {
  return cappedNote(capped, DETAIL_LIMITS, (p) => p || '/');
}

export interface ItemsVerdict {
  /** Items that failed their schema (all of them counted). */
  invalid: number;
  /** At most MAX_LISTED_ERRORS. */
  errors: ItemError[];
  /** Set when problems may be unlisted: why, in words. */
  note?: string;
}

/**
 * Validates each item of a list against `schema`, in time linear in the list: every item goes
 * through the first-error validator, and only while fewer than MAX_LISTED_ERRORS problems are
 * listed is an invalid item listed in detail (bounded, src/schema/bounded.ts). `itemsAt` is the
 * list's pointer (`/@graph`, or `` for a legacy array).
 */
export function checkItems(
  items: readonly unknown[],
  schema: string,
  itemsAt: string,
  skuOf: (index: number) => string | null,
): ItemsVerdict {
  const first = getValidator(schema);
  const errors: ItemError[] = [];
  let invalid = 0;
  let detailed = 0;
  let cappedItems = 0;
  for (let i = 0; i < items.length; i++) {
    if (first(items[i])) continue;
    invalid++;
    if (errors.length >= MAX_LISTED_ERRORS) continue;
    detailed++;
    const check = checkSchema(schema, items[i]);
    if (check.capped) cappedItems++;
    errors.push(...itemErrors(check.errors, itemsAt, skuOf, `${itemsAt}/${i}`));
  }
  const notes: string[] = [];
  if (detailed < invalid) notes.push(`problems are listed for the first ${detailed} invalid items only`);
  else if (errors.length > MAX_LISTED_ERRORS)
    notes.push(`the first ${MAX_LISTED_ERRORS} problems are listed`);
  if (cappedItems > 0)
    notes.push(
      `${cappedItems} item${cappedItems === 1 ? ' has' : 's have'} more problems than listed (at most ${DETAIL_LIMITS.errors} per item, in the first ${DETAIL_LIMITS.listItems} entries of a list)`,
    );
  const verdict: ItemsVerdict = { invalid, errors: errors.slice(0, MAX_LISTED_ERRORS) };
  if (notes.length > 0) verdict.note = notes.join('; ');
  return verdict;
}
