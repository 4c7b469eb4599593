import {
  type BooleanWords,
  DEFAULT_BOOLEAN_WORDS,
  parseAvailability,
  parseBoolean,
  type ValueError,
} from '../map/values.js';

/**
 * A stock file's value, read as one of the contract's stock states (contract 3): an `in_stock`
 * column holds a yes/no (true/false, 1/0, yes/no, ...), an `availability` column a state
 * (InStock, OutOfStock, PreOrder and the spellings a feed's availability column accepts).
 */
export type Availability = 'InStock' | 'OutOfStock' | 'PreOrder';

/** Which kind of column the value came from. */
export type StockKind = 'in_stock' | 'availability';

export type StockValue =
  | { ok: true; value: Availability }
  | { ok: false; code: string; message: string; hint: string };

/** How one column's values are read: a mapping file's `map` first, then its `true`/`false` words. */
export interface ValueRule {
  map?: ReadonlyMap<string, string | number | boolean>;
  booleans?: BooleanWords;
}

export function stockValue(raw: unknown, kind: StockKind, rule: ValueRule = {}): StockValue {
  let value: unknown = raw;
  if (typeof value === 'string' && rule.map) {
    const mapped = rule.map.get(value) ?? rule.map.get(value.trim());
    if (mapped !== undefined) value = mapped;
  }
  if (typeof value === 'boolean') return { ok: true, value: value ? 'InStock' : 'OutOfStock' };
  if (typeof value === 'number') value = String(value);
  if (typeof value !== 'string' || value.trim() === '')
    return {
      ok: false,
      code: 'required',
      message: `no ${kind} value`,
      hint: kind === 'in_stock' ? 'give true or false (1/0, yes/no)' : 'give InStock, OutOfStock or PreOrder',
    };
  if (kind === 'availability') {
    const parsed = parseAvailability(value.trim());
    if (parsed.ok) return { ok: true, value: parsed.value as Availability };
    return failed(parsed.error, 'availability');
  }
  const parsed = parseBoolean(value, rule.booleans ?? DEFAULT_BOOLEAN_WORDS);
  if (parsed.ok) return { ok: true, value: parsed.value ? 'InStock' : 'OutOfStock' };
  return failed(parsed.error, 'in_stock');
}

function failed(e: ValueError, kind: StockKind): StockValue {
  return { ok: false, code: e.code, message: `${kind} ${e.message}`, hint: e.hint ?? '' };
}
