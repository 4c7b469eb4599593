import { isObject } from '../shared/is-object.js';
import { pointerToken } from '../shared/json-pointer.js';
import { EVENT_KINDS, EVENT_TYPES, type EventKind, kindByType } from './kinds.js';

/**
 * The contract's event samples (section 2.6, "Samples also show other values") differ from its
 * enumerations: specversion `1.0`, ids with a numeric suffix, type `complate_purchase`, type
 * `view_search_result`, keys with a stray leading apostrophe, and `AddAction` in a cart remove.
 * Events copied from those samples fail the schemas; each quirk is recognised here, named by a
 * stable code, and fixed, so that `events validate` says "did you mean" once instead of a
 * misleading schema error, and `--fix` can write a corrected copy. Pure: no I/O.
 */

export type QuirkCode =
  | 'specversion_1_0'
  | 'type_misspelled'
  | 'type_view_search_result'
  | 'id_numeric_suffix'
  | 'key_stray_apostrophe'
  | 'cart_remove_add_action';

export interface EventFix {
  code: QuirkCode;
  /** JSON pointer of what was fixed (in the event as given). */
  pointer: string;
  /** The value as given, and what it became. */
  from: string;
  to: string;
  /** One line: what is wrong, "did you mean", and the fix. */
  message: string;
}

/** Types seen in the samples that are not misspellings but another name for a kind. */
const TYPE_ALIASES: Record<string, string> = { view_search_result: 'search_result' };

/** Damerau-Levenshtein distance (optimal string alignment): a swapped pair of letters costs 1. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [
    i,
    ...new Array<number>(b.length).fill(0),
  ]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.length][b.length];
}

/**
 * The event type a mistyped one most likely meant (`view_prodcut` -> `view_product`), or
 * undefined when none is close: at most 2 edits, and 1 for short words, after case and `-`.
 */
export function closestEventType(given: string): string | undefined {
  const norm = given.trim().toLowerCase().replace(/[-\s]/g, '_');
  if (TYPE_ALIASES[norm]) return TYPE_ALIASES[norm];
  if ((EVENT_TYPES as readonly string[]).includes(norm)) return norm;
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const type of EVENT_TYPES) {
    const distance = editDistance(norm, type);
    if (distance < bestDistance) {
      best = type;
      bestDistance = distance;
    }
  }
  const allowed = norm.length <= 6 ? 1 : 2;
  return bestDistance <= allowed ? best : undefined;
}

/** A kind's id with a numeric suffix (`EVT-VIEW-PRODUCT-001`, `EVT-VIEW-PRODUCT_2`, `EVT-VIEW-PRODUCT3`). */
function idWithoutSuffix(id: string): string | undefined {
  const m = /^(EVT(?:-[A-Z]+)+?)[-_]?\d+$/i.exec(id.trim());
  if (!m) return undefined;
  const base = m[1].toUpperCase();
  return EVENT_KINDS.some((k) => k.id === base) ? base : undefined;
}

const STRAY = /^['‘’`]+|['‘’`]+$/g;
const STRAY_TEST = /^['‘’`]|['‘’`]$/;

function hasStrayKey(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(hasStrayKey);
  if (!isObject(value)) return false;
  for (const [key, v] of Object.entries(value)) {
    if (STRAY_TEST.test(key) || hasStrayKey(v)) return true;
  }
  return false;
}

/** Copies a JSON value, removing stray apostrophes around keys (`'numberOfItems`). */
function unquoteKeys(value: unknown, pointer: string, fixes: EventFix[]): unknown {
  if (Array.isArray(value)) return value.map((v, i) => unquoteKeys(v, `${pointer}/${i}`, fixes));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const clean = key.replace(STRAY, '');
    let name = key;
    if (clean !== key && clean !== '' && !(clean in value)) {
      name = clean;
      fixes.push({
        code: 'key_stray_apostrophe',
        pointer: `${pointer}/${pointerToken(key)}`,
        from: key,
        to: clean,
        message: `key ${JSON.stringify(key)} has a stray apostrophe (copied from the contract's sample); did you mean "${clean}"? Fix: rename the key to "${clean}"`,
      });
    }
    out[name] = unquoteKeys(v, `${pointer}/${pointerToken(key)}`, fixes);
  }
  return out;
}

/**
 * The event with every recognised sample quirk fixed, and what was fixed. `forcedType` is the
 * kind the event is sent as (`--type`), if given. An event without quirks comes back equal.
 */
export function fixEvent(
  event: Record<string, unknown>,
  forcedType?: string,
): { event: Record<string, unknown>; fixes: EventFix[] } {
  const fixes: EventFix[] = [];
  // Copied, never changed in place: deeply only when a key needs unquoting (rare), else the top.
  const fixed = hasStrayKey(event)
    ? (unquoteKeys(event, '', fixes) as Record<string, unknown>)
    : { ...event };

  if (fixed.specversion === '1.0' || fixed.specversion === 1) {
    fixes.push({
      code: 'specversion_1_0',
      pointer: '/specversion',
      from: String(fixed.specversion),
      to: '1.0.0',
      message:
        'specversion is "1.0" (the contract\'s sample; 1.0 is the product API\'s envelope version); did you mean "1.0.0"? Behaviour events carry only 1.0.0 (contract 2.1, 9.1). Fix: "specversion": "1.0.0"',
    });
    fixed.specversion = '1.0.0';
  }

  if (typeof fixed.type === 'string' && !kindByType(fixed.type)) {
    const to = closestEventType(fixed.type);
    if (to) {
      const alias = TYPE_ALIASES[fixed.type.trim().toLowerCase()] !== undefined;
      fixes.push({
        code: alias ? 'type_view_search_result' : 'type_misspelled',
        pointer: '/type',
        from: fixed.type,
        to,
        message: alias
          ? `type "${fixed.type}" appears in the contract's samples but is not an event type; did you mean "${to}"? Fix: "type": "${to}" (and send it to ${kindByType(to)!.path})`
          : `type "${fixed.type}" is not an event type; did you mean "${to}"? Fix: "type": "${to}"`,
      });
      fixed.type = to;
    }
  }

  if (typeof fixed.id === 'string') {
    const to = idWithoutSuffix(fixed.id);
    if (to && to !== fixed.id) {
      fixes.push({
        code: 'id_numeric_suffix',
        pointer: '/id',
        from: fixed.id,
        to,
        message: `id "${fixed.id}" has a numeric suffix (as in the contract's samples); did you mean "${to}"? The envelope id names the event kind, one constant per kind (contract 2.6). Fix: "id": "${to}"`,
      });
      fixed.id = to;
    }
  }

  const kind = kindFor(fixed, forcedType);
  const data = fixed.data;
  if (kind?.type === 'remove_from_cart' && isObject(data) && data['@type'] === 'AddAction') {
    fixes.push({
      code: 'cart_remove_add_action',
      pointer: '/data/@type',
      from: 'AddAction',
      to: 'DeleteAction',
      message:
        'data.@type is AddAction in a remove_from_cart event (one of the contract\'s samples); did you mean "DeleteAction"? A removal is a DeleteAction, as for the wishlist (docs/events.md). Fix: "@type": "DeleteAction"',
    });
    fixed.data = { ...data, '@type': 'DeleteAction' };
  }
  return { event: fixed, fixes };
}

function kindFor(event: Record<string, unknown>, forcedType?: string): EventKind | undefined {
  if (forcedType) return kindByType(forcedType);
  if (typeof event.type === 'string') return kindByType(event.type);
  if (typeof event.id === 'string') return EVENT_KINDS.find((k) => k.id === event.id);
  return undefined;
}

/** The hint for an unknown type given on the command line (`--type`, `events example TYPE`). */
export function unknownTypeHint(given: string): string {
  const closest = closestEventType(given);
  const list = `the event types are ${EVENT_TYPES.join(', ')}`;
  return closest ? `did you mean "${closest}"? ${list}` : list;
}
