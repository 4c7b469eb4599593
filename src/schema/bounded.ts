import type { ErrorObject, ValidateFunction } from 'ajv';
import { pointerToken } from '../shared/json-pointer.js';
import { getAllErrorsValidator, getValidator } from './schemas.js';

/**
 * Schema validation whose cost is linear in what a client sends, however many errors it holds.
 *
 * ajv's all-errors mode takes time in the square of the number of errors (64k bad image URLs:
 * a minute), so it only ever sees a bounded view of the data: every list cut to its first
 * `listItems` entries, at most `values` values in all. Data within those bounds (most rows) is
 * checked by it directly. Larger data first goes through the first-error validator (linear);
 * when that finds it invalid, the view is listed in detail, and the first-error validator's
 * error is always kept: it may lie past a cut.
 */
export interface DetailLimits {
  /** Entries of any one list checked in detail. Not below any `maxItems` in schemas/. */
  listItems: number;
  /** Values (objects, lists, scalars) checked in detail; a larger value gets its first error only. */
  values: number;
  /** Errors returned at most. */
  errors: number;
}

export const DETAIL_LIMITS: DetailLimits = { listItems: 100, values: 2000, errors: 100 };

/** A value's size: its longest list and its values in all (or a bound of them). */
export type ViewSize = Pick<DetailLimits, 'listItems' | 'values'>;

/** Why a list of errors may be incomplete; absent when it is complete. */
export interface Capped {
  /** JSON pointers of the lists cut to `listItems` entries. */
  lists: string[];
  /** The value had more than `values` values: only its first error is listed. */
  tooLarge: boolean;
  /** More than `errors` errors were found; the rest are left out. */
  moreErrors: boolean;
}

export interface SchemaCheck {
  valid: boolean;
  /** Empty when valid. */
  errors: ErrorObject[];
  capped?: Capped;
}

/** The view the all-errors validator sees (see above), and what it leaves out. */
export function boundedView(
  data: unknown,
  limits: Pick<DetailLimits, 'listItems' | 'values'>,
): { value: unknown; lists: string[]; tooLarge: boolean } {
  let budget = limits.values;
  const lists: string[] = [];
  const copy = (v: unknown, path: string): unknown => {
    budget--;
    if (v === null || typeof v !== 'object' || budget < 0) return v;
    if (Array.isArray(v)) {
      const n = Math.min(v.length, limits.listItems);
      if (v.length > n) lists.push(path);
      const out: unknown[] = new Array(n);
      for (let i = 0; i < n && budget >= 0; i++) out[i] = copy(v[i], `${path}/${i}`);
      return out;
    }
    // A null prototype keeps a JSON key "__proto__" an ordinary key, as JSON.parse made it.
    const out: Record<string, unknown> = Object.create(null);
    for (const k in v) {
      if (budget < 0) break;
      if (Object.hasOwn(v, k)) out[k] = copy((v as Record<string, unknown>)[k], `${path}/${pointerToken(k)}`);
    }
    return out;
  };
  const value = copy(data, '');
  return { value, lists, tooLarge: budget < 0 };
}

const sameError = (a: ErrorObject, b: ErrorObject) =>
  a.instancePath === b.instancePath && a.schemaPath === b.schemaPath && a.keyword === b.keyword;

/**
 * Whether `data` is within the view's bounds (no list longer than `listItems`, at most `values`
 * values): then the all-errors validator may see it whole. Stops at the first excess.
 */
export function withinView(data: unknown, limits: ViewSize): boolean {
  if (data === null || typeof data !== 'object') return true;
  return budgetLeft(data, limits.listItems, limits.values - 1) >= 0;
}

/**
 * The value budget left after `v`'s members, or -1 once it runs out or a list is too long. Runs
 * for every row, so it is a plain loop: scalars are counted, not visited.
 */
function budgetLeft(v: object, listItems: number, budget: number): number {
  let left = budget;
  if (Array.isArray(v)) {
    if (v.length > listItems) return -1;
    left -= v.length;
    for (let i = 0; i < v.length && left >= 0; i++) {
      const c: unknown = v[i];
      if (c !== null && typeof c === 'object') left = budgetLeft(c, listItems, left);
    }
    return left;
  }
  for (const k in v) {
    if (--left < 0) return -1;
    const c: unknown = (v as Record<string, unknown>)[k];
    if (c !== null && typeof c === 'object') {
      left = budgetLeft(c, listItems, left);
      if (left < 0) return -1;
    }
  }
  return left;
}

/** The answer for valid data, shared: made once, not once per row (nobody writes to it). */
const VALID: SchemaCheck = Object.freeze({
  valid: true,
  errors: Object.freeze([]) as unknown as ErrorObject[],
});

/** Without ajv's `if` errors: they only say that the `then` or `else` error beside them failed. */
function branchless(errors: ErrorObject[] | null | undefined): ErrorObject[] {
  return (errors ?? []).filter((e) => e.keyword !== 'if');
}

/**
 * Validates `data` against a bundled schema (schemas.ts names), in linear time (see above).
 * `accepts`: a cheaper validator (compiled beside the all-errors ones) that says valid only when
 * the schema does, to decide data within the view; what it refuses is checked in full.
 * `size`: a bound of the data's size the caller knows (a product built from a mapped row:
 * src/payload/standard.ts, `builtSize`); data whose bound is within the view is not walked.
 */
export function checkSchema(
  name: string,
  data: unknown,
  limits: DetailLimits = DETAIL_LIMITS,
  accepts?: ValidateFunction,
  size?: ViewSize,
): SchemaCheck {
  const all = getAllErrorsValidator(name);
  // Most values (a catalog row) are small: the all-errors validator sees them whole, at once.
  const known = size !== undefined && size.values <= limits.values && size.listItems <= limits.listItems;
  if (known || withinView(data, limits)) {
    if (accepts?.(data) || all(data)) return VALID;
    const found = branchless(all.errors);
    if (found.length <= limits.errors) return { valid: false, errors: found };
    return {
      valid: false,
      errors: found.slice(0, limits.errors),
      capped: { lists: [], tooLarge: false, moreErrors: true },
    };
  }
  const first = getValidator(name);
  if (first(data)) return VALID;
  const firstError = first.errors?.[0];
  const view = boundedView(data, limits);
  if (view.tooLarge) {
    return {
      valid: false,
      errors: firstError ? [firstError] : [],
      capped: { lists: view.lists, tooLarge: true, moreErrors: false },
    };
  }
  let errors: ErrorObject[] = all(view.value) ? [] : branchless(all.errors);
  if (firstError && !errors.some((e) => sameError(e, firstError))) errors = [firstError, ...errors];
  const moreErrors = errors.length > limits.errors;
  if (moreErrors) errors = errors.slice(0, limits.errors);
  const result: SchemaCheck = { valid: false, errors };
  if (moreErrors || view.lists.length > 0) result.capped = { lists: view.lists, tooLarge: false, moreErrors };
  return result;
}

/** The capping in words, for a report or an answer: `where` names a list (pointer -> field). */
export function cappedNote(capped: Capped, limits: DetailLimits, where: (pointer: string) => string): string {
  const parts: string[] = [];
  if (capped.tooLarge)
    parts.push(`the value has over ${limits.values} values, so only its first problem is listed`);
  else if (capped.moreErrors) parts.push(`only the first ${limits.errors} problems are listed`);
  if (capped.lists.length > 0) {
    const shown = capped.lists.slice(0, 3).map(where).join(', ');
    const more = capped.lists.length > 3 ? ` and ${capped.lists.length - 3} more lists` : '';
    parts.push(`only the first ${limits.listItems} entries of ${shown}${more} were checked in detail`);
  }
  return parts.join('; ');
}
