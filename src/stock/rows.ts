import type { FeedRow } from '../feed/index.js';
import { shorten } from '../map/values.js';
import { type ReadOptions, readFeed } from '../read/index.js';
import type { Logger } from '../shared/logger.js';
import type { Issue, PayloadFormat, SourceRecord } from '../shared/types.js';
import { pick, type StockColumns } from './columns.js';
import { stockField, withStock } from './merge.js';
import { stockValue } from './value.js';

/**
 * A stock file's rows as the upload engine's feed rows (docs/nightly.md, "Stock changes"): a
 * valid row carries the SKU's last accepted payload with the new stock merged in; every other
 * row is an error row naming file, row, line and SKU, so the report lists it and the others go.
 */
export interface StockRowContext {
  format: PayloadFormat;
  columns: StockColumns;
  /** The payload the service last accepted for the SKU, from the target's upload state. */
  lastPayload(sku: string): Uint8Array | undefined;
}

/** What `stockRows` reads the state through: the last accepted payloads of many SKUs at once. */
export interface StockContext extends Omit<StockRowContext, 'lastPayload'> {
  payloads(skus: readonly string[]): Promise<Map<string, Uint8Array>>;
}

/** Records whose last payloads are read from the state in one call (one query on a database server). */
const PAYLOADS_AT_ONCE = 500;

/** How many merged payloads differ from the last accepted one (the rest are sent again as they are). */
export interface StockCounts {
  changed: number;
  same: number;
}

type At = Pick<SourceRecord, 'file' | 'row' | 'line'>;

function errorRow(at: At, sku: string | undefined, problem: Omit<Issue, 'severity' | 'file'>): FeedRow {
  const issue: Issue = { severity: 'error', file: at.file, ...problem };
  if (sku !== undefined) issue.sku = sku;
  return {
    file: at.file,
    row: at.row,
    line: at.line,
    ...(sku !== undefined ? { sku } : {}),
    issues: [issue],
    valid: false,
  };
}

/** The SKU a record names, trimmed; undefined when it names none. */
export function skuOf(record: SourceRecord, columns: StockColumns): string | undefined {
  const found = pick(record.fields, columns.sku);
  if (!found) return undefined;
  const v = found.value;
  const text = typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : undefined;
  return text === '' ? undefined : text;
}

/** One record of the stock file as a feed row (pure: the state is read through `lastPayload`). */
export function stockRow(record: SourceRecord, ctx: StockRowContext): FeedRow {
  const at = { file: record.file, row: record.row, line: record.line };
  const field = stockField(ctx.format);
  const sku = skuOf(record, ctx.columns);
  if (sku === undefined)
    return errorRow(at, undefined, {
      code: 'required',
      row: at.row,
      line: at.line,
      field: ctx.format === 'legacy' ? 'code' : 'sku',
      message: 'no SKU',
      hint: `name the product in a ${ctx.columns.sku.join(' or ')} column (or map one with --mapping)`,
    });
  const found = pick(record.fields, ctx.columns.value);
  if (!found)
    return errorRow(at, sku, {
      code: 'required',
      row: at.row,
      line: at.line,
      field,
      message: `no stock value for SKU ${sku}`,
      hint: `give it in a ${ctx.columns.value.map((v) => v.column).join(' or ')} column (or map one with --mapping)`,
    });
  const parsed = stockValue(found.value, found.at.kind, found.at.rule);
  if (!parsed.ok)
    return errorRow(at, sku, {
      code: parsed.code,
      row: at.row,
      line: at.line,
      column: found.column,
      field,
      value: shorten(found.value),
      message: parsed.message,
      hint: parsed.hint,
    });
  const last = ctx.lastPayload(sku);
  if (last === undefined)
    return errorRow(at, sku, {
      code: 'unknown_sku',
      row: at.row,
      line: at.line,
      field,
      value: sku,
      message: `SKU ${sku} has no accepted payload in this target's upload state`,
      hint: 'upload the product first (genser upload FEED with the same --api-url, key and --format), then send its stock',
    });
  const merged = withStock(ctx.format, last, parsed.value);
  if (merged === undefined)
    return errorRow(at, sku, {
      code: 'no_offer',
      row: at.row,
      line: at.line,
      field,
      message: `the last accepted payload of SKU ${sku} has no offers to carry the availability`,
      hint: 'upload the product with its offers first',
    });
  return { ...at, sku, issues: [], valid: true, json: merged.json, price: merged.price };
}

/** A read problem as the row it belongs to (row 0: the file's). */
function readIssueRow(issue: Issue): FeedRow {
  return {
    file: issue.file,
    row: issue.row ?? 0,
    line: issue.line ?? 0,
    ...(issue.sku !== undefined ? { sku: issue.sku } : {}),
    issues: [issue],
    valid: issue.severity !== 'error',
  };
}

/**
 * The stock file's rows, in order. The file is read whole first (stock files are small): a SKU
 * named on two rows is an error on each of them and neither is sent, since which value is meant
 * cannot be told.
 */
export async function* stockRows(
  source: string,
  read: ReadOptions,
  stock: StockContext,
  log: Logger,
  counts: StockCounts,
  stdin?: NodeJS.ReadableStream,
): AsyncGenerator<FeedRow> {
  const records: SourceRecord[] = [];
  const issues: Issue[] = [];
  for await (const item of readFeed(source, read, log, stdin)) {
    if (item.type === 'record') records.push(item.record);
    else issues.push(item.issue);
  }
  const rowsOf = new Map<string, number[]>();
  for (const r of records) {
    const sku = skuOf(r, stock.columns);
    if (sku === undefined) continue;
    const rows = rowsOf.get(sku);
    if (rows) rows.push(r.row);
    else rowsOf.set(sku, [r.row]);
  }
  for (const issue of issues) if (issue.row === undefined) yield readIssueRow(issue);
  // Read issues by row: looked up once per record, not searched for (a big file, many warnings).
  const issuesOf = new Map<number, Issue[]>();
  const rowIssues: Issue[] = [];
  for (const issue of issues) {
    if (issue.row === undefined) continue;
    rowIssues.push(issue);
    const own = issuesOf.get(issue.row);
    if (own) own.push(issue);
    else issuesOf.set(issue.row, [issue]);
  }
  const recordRows = new Set(records.map((r) => r.row));
  let last = new Map<string, Uint8Array>();
  const ctx: StockRowContext = {
    format: stock.format,
    columns: stock.columns,
    lastPayload: (sku) => last.get(sku),
  };
  for (const [i, record] of records.entries()) {
    if (i % PAYLOADS_AT_ONCE === 0) {
      const skus = records.slice(i, i + PAYLOADS_AT_ONCE).map((r) => skuOf(r, stock.columns));
      last = await stock.payloads(skus.filter((sku) => sku !== undefined));
    }
    const own = issuesOf.get(record.row) ?? [];
    const sku = skuOf(record, ctx.columns);
    const dup = sku === undefined ? undefined : rowsOf.get(sku);
    let row: FeedRow;
    if (dup && dup.length > 1) {
      const at = { file: record.file, row: record.row, line: record.line };
      row = errorRow(at, sku, {
        code: 'duplicate_sku',
        row: at.row,
        line: at.line,
        field: ctx.format === 'legacy' ? 'code' : 'sku',
        value: sku,
        message: `SKU ${sku} is on ${dup.length} rows of the stock file (rows ${dup.join(', ')}): none of them was sent`,
        hint: 'keep one row per SKU',
      });
    } else row = stockRow(record, ctx);
    if (own.length > 0) {
      row.issues.unshift(...own);
      if (own.some((i) => i.severity === 'error') && row.valid) {
        row.valid = false;
        delete row.json;
      }
    }
    if (row.valid && row.json && row.sku !== undefined) {
      const last = ctx.lastPayload(row.sku);
      if (last && Buffer.from(row.json).equals(Buffer.from(last))) counts.same++;
      else counts.changed++;
    }
    yield row;
  }
  for (const issue of rowIssues) if (!recordRows.has(issue.row!)) yield readIssueRow(issue);
}
