import type { Language } from '../shared/types.js';
import type { FieldRule } from './mapping-file.js';
import type { Plan } from './plan.js';
import { rowCode } from './row-code.js';
import { PARSED_KINDS, PLAIN_KINDS } from './typed.js';
import { shorten, splitList, stripHtml, type ValueError } from './values.js';

/**
 * Applies a plan to one record: typed values keyed by target field, plus the problems found.
 * Text for one language is `{language, value}`; lists are arrays; numbers are numbers.
 */
export interface LangText {
  language: Language;
  value: string;
}
export interface LangList {
  language: Language;
  items: string[];
}

export interface MapProblem {
  /** Default: error. */
  severity?: 'error' | 'warning';
  code: string;
  column?: string;
  field: string;
  value?: string;
  message: string;
  hint?: string;
}

export interface MappedRow {
  values: Record<string, unknown>;
  problems: MapProblem[];
  /** Payload paths whose value was present but unusable: the schema's "required" on them is not repeated. */
  failed?: Set<string>;
  /**
   * The values mapped: each scalar, list item and language's text, and each language's list
   * with its items. With `longest` (the most items or languages of one field) they bound the
   * size of the product built from them (src/payload/standard.ts, `builtSize`).
   */
  units: number;
  longest: number;
}

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

/** A source value (not empty) through the rule's transforms; undefined when nothing is left. */
function scalarOf(rule: FieldRule, raw: unknown): unknown {
  if (typeof raw === 'number' || typeof raw === 'boolean') {
    const mapped = rule.map?.get(String(raw));
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
  return transform(rule, text);
}

/** A scalar's value that did not parse: its problem, and its path among the failed ones. */
function unusable(
  rule: FieldRule,
  error: ValueError,
  value: unknown,
  column: string | undefined,
  problems: MapProblem[],
  failed: Set<string> | undefined,
): Set<string> {
  const path = rule.field.path;
  const out = failed ?? new Set<string>();
  out.add(path);
  problems.push({
    code: error.code,
    column: column ?? rule.sources[0]?.column,
    field: path,
    value: shorten(value),
    message: `${path} ${error.message}`,
    hint: error.hint,
  });
  return out;
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

type RowMapper = (fields: Record<string, unknown>) => MappedRow;
type MapperFactory = (
  R: FieldRule[],
  P: Plan,
  zone: string,
  sep: string,
  helpers: typeof HELPERS,
) => RowMapper;

const HELPERS = { isEmpty, scalarOf, unusable, listItems, addLanguage, A: PLAIN_KINDS, T: PARSED_KINDS };

/** Compiled bodies by their text (equal headers share one); bounded, as a JSON feed's key sets may vary. */
const FACTORIES_MAX = 64;
const factories = new Map<string, MapperFactory>();
const mappers = new WeakMap<Plan, RowMapper>();
let lastPlan: Plan | undefined;
let lastMapper: RowMapper | undefined;

/** The plan's mapper, compiled on its first row (src/map/row-code.ts). */
function mapperOf(plan: Plan): RowMapper {
  if (plan === lastPlan && lastMapper !== undefined) return lastMapper;
  let mapper = mappers.get(plan);
  if (mapper === undefined) {
    const code = rowCode(plan);
    let factory = factories.get(code);
    if (factory === undefined) {
      factory = new Function(
        'R',
        'P',
        'zone',
        'sep',
        'helpers',
        `const { isEmpty, scalarOf, unusable, listItems, addLanguage, A, T } = helpers;\nreturn function mapRowOf(f) {\n${code}\n};`,
      ) as MapperFactory;
      if (factories.size >= FACTORIES_MAX) factories.clear();
      factories.set(code, factory);
    }
    mapper = factory(plan.rules, plan, plan.zone, plan.listSeparator, HELPERS);
    mappers.set(plan, mapper);
  }
  lastPlan = plan;
  lastMapper = mapper;
  return mapper;
}

/** One record through the plan: its typed values by target, and the problems found. */
export function mapRow(plan: Plan, fields: Record<string, unknown>): MappedRow {
  return mapperOf(plan)(fields);
}
