import type { ErrorObject } from 'ajv';

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
        pointer: `${e.instancePath}/${escapePointer(String(p.missingProperty))}`,
        message: `missing required property "${String(p.missingProperty)}"`,
      };
    case 'additionalProperties':
      return {
        pointer: `${e.instancePath}/${escapePointer(String(p.additionalProperty))}`,
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

function escapePointer(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
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
