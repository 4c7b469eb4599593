import type { Mapping } from '../map/mapping-file.js';
import type { PayloadFormat } from '../shared/types.js';
import type { StockKind, ValueRule } from './value.js';

/**
 * Which columns of a stock file hold the SKU and the stock value (docs/nightly.md, "Stock
 * changes"). Without a mapping file: `sku` (or the legacy `code`), and `availability`, `in_stock`
 * or `isInStock`, matched without regard to case. A mapping file (the one the feed is uploaded
 * with works) names other columns: its `sku` and `availability` fields (standard), or `code` and
 * `isInStock` (legacy), with their `map` and `true`/`false` words.
 */
export interface StockColumns {
  /** Tried in order; the first the row has (not empty) gives the SKU. */
  sku: string[];
  /** Tried in order; the first the row has (not empty) gives the value. */
  value: { column: string; kind: StockKind; rule: ValueRule }[];
}

const DEFAULT_COLUMNS: StockColumns = {
  sku: ['sku', 'code'],
  value: [
    { column: 'availability', kind: 'availability', rule: {} },
    { column: 'in_stock', kind: 'in_stock', rule: {} },
    { column: 'isInStock', kind: 'in_stock', rule: {} },
  ],
};

export function stockColumns(format: PayloadFormat, mapping?: Mapping): StockColumns {
  if (!mapping) return DEFAULT_COLUMNS;
  const skuTarget = format === 'legacy' ? 'code' : 'sku';
  const valueTarget = format === 'legacy' ? 'isInStock' : 'availability';
  const kind: StockKind = format === 'legacy' ? 'in_stock' : 'availability';
  const skuRule = mapping.rules.find((r) => r.field.target === skuTarget);
  const valueRule = mapping.rules.find((r) => r.field.target === valueTarget);
  return {
    sku: skuRule?.sources.length ? skuRule.sources.map((s) => s.column) : DEFAULT_COLUMNS.sku,
    value: valueRule?.sources.length
      ? valueRule.sources.map((s) => ({
          column: s.column,
          kind,
          rule: { ...(valueRule.map ? { map: valueRule.map } : {}), booleans: valueRule.booleans },
        }))
      : DEFAULT_COLUMNS.value,
  };
}

/** The row's value of the first of `columns` it has and is not empty; header case does not matter. */
export function pick<T extends string | { column: string }>(
  fields: Record<string, unknown>,
  columns: readonly T[],
): { at: T; column: string; value: unknown } | undefined {
  for (const at of columns) {
    const name = typeof at === 'string' ? at : at.column;
    const column =
      name in fields ? name : Object.keys(fields).find((k) => k.toLowerCase() === name.toLowerCase());
    if (column === undefined) continue;
    const value = fields[column];
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) continue;
    return { at, column, value };
  }
  return undefined;
}
