import { createHash, hash } from 'node:crypto';
import type { Mapping } from '../map/mapping-file.js';
import { codeDigest } from '../shared/code-digest.js';
import type { FeedOptions, Issue, SourceRecord } from '../shared/types.js';

/**
 * Source keys (docs/nightly.md, "Unchanged rows"): 16 bytes of SHA-256 over a record's column
 * names and values, the way the file is read (CSV or JSON, the record's shape), the run's feed
 * settings and resolved mapping (relative dates of `--set` and `defaults` resolved: a new day
 * makes new keys), and the code that maps (src/shared/code-digest.ts). The payload and the
 * issues of a row are a function of exactly these, so a row whose key the service already
 * accepted would give the same payload bytes and the same warnings (kept beside the key): it
 * need not be mapped, validated, serialized or hashed again.
 */
export const SOURCE_KEY_BYTES = 16;

/** What the run's payloads depend on besides the record: one digest per run. */
export function settingsDigest(options: FeedOptions, mapping: Mapping | undefined): string {
  // The run's instant (and whether invalid rows keep their record) is left out: what depends on it is in the mapping (relative dates,
  // resolved) or in the record (a shop transform's sale price, applied before keying).
  const { runDate: _runDate, keepRecords: _keepRecords, ...settings } = options;
  const text = JSON.stringify({ code: codeDigest(), settings, mapping }, (_key, value: unknown) => {
    if (value instanceof Map) return { map: [...value] };
    if (value instanceof Set) return { set: [...value] };
    if (value instanceof RegExp) return { regexp: String(value) };
    if (typeof value === 'function') throw new Error('a mapping holds a function: it cannot be keyed');
    return value;
  });
  return createHash('sha256').update(text).digest('base64url');
}

/**
 * The key of one record. Every part is length-prefixed, so no two records share a text: a value
 * cannot pass for the next column. `context` is the settings digest and how the file is read;
 * for a CSV file also its header, so `withNames` is false there: every record has its columns.
 */
export function sourceKey(context: string, record: SourceRecord, shape: string, withNames: boolean): Buffer {
  let text = `${context}\u0001${shape}\u0001`;
  const fields = record.fields;
  for (const k in fields) {
    const v = fields[k];
    if (withNames) text += `${k.length}:${k}`;
    if (typeof v === 'string') text += `s${v.length}:${v}`;
    else if (v === undefined) text += 'u';
    else text += jsonPart(v);
  }
  // Hashed as UTF-16 from one reused buffer: one copy of the code units is cheaper than encoding
  // Korean text as UTF-8, or than the hash making its own copy per row (BENCHMARKS.md).
  if (scratch.length < text.length * 2) scratch = Buffer.allocUnsafeSlow(text.length * 2 + 4096);
  const bytes = scratch.write(text, 0, 'utf16le');
  return hash('sha256', scratch.subarray(0, bytes), 'buffer').subarray(0, SOURCE_KEY_BYTES);
}

let scratch = Buffer.allocUnsafeSlow(64 * 1024);

/**
 * A value that is not text, as JSON, length-prefixed. JSON writes Infinity, -Infinity and NaN
 * (a JSON reader makes 1e999 Infinity) as null, where the mapping reads them as "Infinity": so
 * a value whose JSON has a null is written again with them marked (`J`), one text per value.
 */
function jsonPart(v: unknown): string {
  const json = JSON.stringify(v);
  if (!json.includes('null')) return `j${json.length}:${json}`;
  const exact = JSON.stringify(v, markNonFinite);
  return `J${exact.length}:${exact}`;
}

/** Non-finite numbers as "\u0000Infinity" (and so on); a text that starts with \u0000 gets one more. */
function markNonFinite(_key: string, x: unknown): unknown {
  if (typeof x === 'number') return Number.isFinite(x) ? x : `\u0000${x}`;
  if (typeof x === 'string' && x.startsWith('\u0000')) return `\u0000${x}`;
  return x;
}

/**
 * The part of a CSV file's keys that its header makes: the settings and its column names,
 * length-prefixed, as one digest. Every row's key hashes it: a digest (43 characters) instead of
 * the names themselves (about 1 KB a row, on the feed worker) says the same.
 */
export function headerContext(settings: string, names: readonly string[]): string {
  let text = `${settings}\u0001csv\u0001${names.length}\u0001`;
  for (const k of names) text += `${k.length}:${k}`;
  return createHash('sha256').update(text).digest('base64url');
}

/** A key as the state stores it (22 characters). */
export function sourceKeyText(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('base64url');
}

/**
 * What the state keeps beside a row's key, for the nights it is skipped: its warnings, without
 * their position (a skipped row gets its own file, row and line back), so that they are reported
 * every night as if it had been mapped; and its GTIN, so that a new row with the same GTIN is
 * still a duplicate of it (docs/nightly.md, "Unchanged rows"). Most rows have a GTIN (digits) and
 * no warning: `g` and the digits. Else a JSON array of warnings alone, or an object with `gtin`
 * and `warnings`; nothing when there is neither. (A key is only ever found again by the genser
 * build that made it, src/shared/code-digest.ts: the text is read by the code that wrote it.)
 */
export function keptWithKey(issues: readonly Issue[], gtin: string | undefined): string {
  if (issues.length === 0) {
    if (gtin === undefined) return '';
    if (DIGITS.test(gtin)) return `g${gtin}`;
  }
  const warnings = issues.map(({ file: _f, row: _r, line: _l, sku: _s, ...rest }) => rest);
  if (gtin !== undefined) return JSON.stringify({ gtin, warnings });
  return warnings.length === 0 ? '' : JSON.stringify(warnings);
}

const DIGITS = /^\d+$/;

/** The warnings of `keptWithKey` at a row again (each issue's keys in the order issueOf gives), and the GTIN. */
export function placeKept(
  text: string,
  at: { file: string; row: number; line: number },
  sku: string,
): { issues: Issue[]; gtin?: string } {
  // `g` and a GTIN's digits: no JSON starts so.
  if (text.charCodeAt(0) === 103) return { issues: [], gtin: text.slice(1) };
  const parsed = JSON.parse(text) as
    | Omit<Issue, 'file' | 'row' | 'line' | 'sku'>[]
    | { gtin: string; warnings: Omit<Issue, 'file' | 'row' | 'line' | 'sku'>[] };
  const kept = Array.isArray(parsed) ? parsed : parsed.warnings;
  const issues = kept.map(({ severity, code, ...rest }) => ({
    severity,
    code,
    file: at.file,
    row: at.row,
    line: at.line,
    sku,
    ...rest,
  }));
  return Array.isArray(parsed) ? { issues } : { issues, gtin: parsed.gtin };
}
