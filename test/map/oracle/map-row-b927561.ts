/**
 * The generic row mapper as it was at b927561, before the plan's row code (src/map/row-code.ts):
 * the oracle the compiled mappers are checked against (test/map/row-code.test.ts). Kept as it
 * was, not maintained: a change of the mapper's behaviour changes the test, not this file.
 */

import type { LangList, LangText, MapProblem, MappedRow } from '../../../src/map/map-row.js';

import type { FieldRule } from '../../../src/map/mapping-file.js';
import type { Plan } from '../../../src/map/plan.js';
import {
  isoUtc,
  type Parsed,
  parseAvailability,
  parseBoolean,
  parseDate,
  parseDateIso,
  parseGtin,
  parseIdentifier,
  parseInteger,
  parseNumber,
  shorten,
  splitList,
  stripHtml,
} from '../../../src/map/values.js';
import type { Language } from '../../../src/shared/types.js';

/** What the mapper returned then (the size it counts now came later). */
type OracleRow = Omit<MappedRow, 'units' | 'longest'>;

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:\/\//i;

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0);
}

/** One source string through the rule's text transforms; undefined when nothing is left. */
function transform(rule: FieldRule, raw: string): string | number | boolean | undefined {
  let s = rule.trim ? raw.trim() : raw;
  if (rule.stripHtml) s = stripHtml(s);
  if (rule.extract) {
    const m = rule.extract.exec(s);
    if (!m) return undefined;
    s = m[1] ?? m[0];
    if (rule.trim) s = s.trim();
  }
  if (s === '') return undefined;
  if (rule.map) {
    const mapped = rule.map.get(s);
    if (mapped !== undefined) return mapped;
  }
  if (rule.prefix !== undefined && !ABSOLUTE.test(s)) s = joinPrefix(rule.prefix, s);
  if (rule.suffix !== undefined) s += rule.suffix;
  return s;
}

function joinPrefix(prefix: string, value: string): string {
  if (prefix.endsWith('/') && value.startsWith('/')) return prefix + value.slice(1);
  if (!prefix.endsWith('/') && !value.startsWith('/') && /^https?:\/\//i.test(prefix))
    return `${prefix}/${value}`;
  return prefix + value;
}

function listItems(rule: FieldRule, raw: unknown, separator: string, out: string[]): void {
  if (isEmpty(raw)) return;
  const pieces = Array.isArray(raw) ? raw : splitList(String(raw), rule.split ?? separator);
  for (const piece of pieces) {
    if (isEmpty(piece)) continue;
    const t = transform(rule, typeof piece === 'string' ? piece : String(piece));
    if (t !== undefined) out.push(String(t));
  }
}

/**
 * The column the last `scalar` call took its value from (undefined for a constant or default).
 * A module variable rather than a returned pair: scalar runs for most fields of every row.
 */
let scalarColumn: string | undefined;

/** The first usable scalar from the rule's sources; its column in `scalarColumn`. */
function scalar(rule: FieldRule, fields: Record<string, unknown>): unknown {
  scalarColumn = undefined;
  const sources = rule.sources;
  for (let i = 0; i < sources.length; i++) {
    const column = sources[i].column;
    const raw = fields[column];
    if (isEmpty(raw)) continue;
    if (typeof raw === 'number' || typeof raw === 'boolean') {
      const mapped = rule.map?.get(String(raw));
      scalarColumn = column;
      return mapped ?? raw;
    }
    let text =
      typeof raw === 'string'
        ? raw
        : Array.isArray(raw)
          ? String(raw[0] ?? '')
          : typeof raw === 'object'
            ? JSON.stringify(raw)
            : String(raw);
    if (rule.split !== undefined) text = splitList(text, rule.split)[0] ?? '';
    const t = transform(rule, text);
    if (t !== undefined) {
      scalarColumn = column;
      return t;
    }
  }
  if (rule.constValue !== undefined) return rule.constValue;
  if (rule.defaultValue !== undefined) return rule.defaultValue;
  return undefined;
}

function addLanguage(
  rule: FieldRule,
  plan: Plan,
  out: (LangText | LangList)[],
  language: Language,
  raw: unknown,
): void {
  if (rule.field.kind === 'mllist') {
    const items: string[] = [];
    listItems(rule, raw, plan.listSeparator, items);
    if (items.length > 0) out.push({ language, items });
    return;
  }
  // Several columns of one language: the first non-empty one wins.
  if (isEmpty(raw) || hasLanguage(out, language)) return;
  const t = transform(rule, typeof raw === 'string' ? raw : String(raw));
  if (t !== undefined) out.push({ language, value: String(t) });
}

function hasLanguage(out: (LangText | LangList)[], language: Language): boolean {
  for (let i = 0; i < out.length; i++) if (out[i].language === language) return true;
  return false;
}

export function oracleMapRow(plan: Plan, fields: Record<string, unknown>): OracleRow {
  const values: Record<string, unknown> = {};
  const problems: MapProblem[] = [];
  let failed: Set<string> | undefined;
  for (const rule of plan.rules) {
    const { field } = rule;
    const target = field.target;
    switch (field.kind) {
      case 'list': {
        const items: string[] = [];
        for (const s of rule.sources) listItems(rule, fields[s.column], plan.listSeparator, items);
        if (items.length === 0) {
          const fallback = rule.constValue ?? rule.defaultValue;
          if (fallback !== undefined) listItems(rule, fallback, plan.listSeparator, items);
        }
        if (items.length > 0) values[target] = items;
        break;
      }
      case 'mltext':
      case 'mllist': {
        const byLanguage: (LangText | LangList)[] = [];
        for (const s of rule.sources)
          addLanguage(rule, plan, byLanguage, s.language ?? rule.language ?? plan.language, fields[s.column]);
        if (byLanguage.length === 0) {
          const fallback = rule.constValue ?? rule.defaultValue;
          if (fallback !== undefined)
            addLanguage(rule, plan, byLanguage, rule.language ?? plan.language, fallback);
        }
        if (byLanguage.length > 0) values[target] = byLanguage;
        break;
      }
      default: {
        const value = scalar(rule, fields);
        const column = scalarColumn;
        if (value === undefined) break;
        const parsed = typed(rule, value, plan.zone);
        if (parsed.ok) {
          values[target] = parsed.value;
        } else {
          failed ??= new Set();
          failed.add(field.path);
          problems.push({
            code: parsed.error.code,
            column: column ?? rule.sources[0]?.column,
            field: field.path,
            value: shorten(value),
            message: `${field.path} ${parsed.error.message}`,
            hint: parsed.error.hint,
          });
        }
      }
    }
  }
  // offers.sku is the sku's unless offer_sku is given: an unusable sku leaves both unfilled.
  if (failed?.has('sku') && values.offer_sku === undefined) failed.add('offers.sku');
  return { values, problems, failed };
}

function typed(rule: FieldRule, value: unknown, planZone: string): Parsed<unknown> {
  const kind = rule.field.kind;
  if (typeof value === 'number') {
    if (kind === 'number' || kind === 'epoch') return { ok: true, value };
    if (kind === 'integer')
      return Number.isSafeInteger(value)
        ? { ok: true, value }
        : { ok: false, error: { code: 'type', message: `must be a whole number; got \`${value}\`` } };
    if (kind === 'boolean' && (value === 0 || value === 1)) return { ok: true, value: value === 1 };
    if (kind === 'date' && Number.isSafeInteger(value) && value > 1e11)
      return { ok: true, value: isoUtc(value) };
  }
  if (typeof value === 'boolean') {
    if (kind === 'boolean') return { ok: true, value };
    if (kind === 'availability') return { ok: true, value: value ? 'InStock' : 'OutOfStock' };
  }
  const text = typeof value === 'string' ? value : String(value);
  switch (kind) {
    case 'number':
      return parseNumber(text, rule.number);
    case 'integer':
      return parseInteger(text, rule.number);
    case 'boolean':
      return parseBoolean(text, rule.booleans);
    case 'date':
      return parseDateIso(text, rule.zone ?? planZone);
    case 'epoch': {
      const d = parseDate(text, rule.zone ?? planZone);
      return d.ok ? { ok: true, value: d.value.ms } : d;
    }
    case 'availability':
      return parseAvailability(text);
    case 'code':
      return { ok: true, value: text.trim().toUpperCase() };
    case 'gtin':
      return parseGtin(text);
    case 'identifier':
      return parseIdentifier(text);
    default:
      return { ok: true, value: text };
  }
}
