import { readFileSync } from 'node:fs';
import type { ErrorObject } from 'ajv';
import { checkSchema } from '../schema/bounded.js';
import { UsageError } from '../shared/errors.js';
import { pointerToken } from '../shared/json-pointer.js';
import type { Language, LegacyKind, PayloadFormat } from '../shared/types.js';
import { timeZoneForCountry } from '../time/zones.js';
import { constantIdentifier, type FieldDefault, fieldDefault, type RunClock } from './defaults.js';
import { type FieldDef, fieldSet, findField } from './fields.js';
import { findPlaceholders } from './placeholders.js';
import {
  type BooleanWords,
  booleanWords,
  compileNumberFormat,
  DEFAULT_NUMBER_FORMAT,
  type NumberFormat,
  type NumberFormatSpec,
} from './values.js';

/**
 * A mapping file (schemas/mapping.schema.json) says where each target field comes from.
 * It is read and checked once; every problem is a usage error (exit 2) naming the file and
 * the JSON pointer of the bad entry.
 */
export interface FieldSpecJson extends NumberFormatSpec {
  column?: string;
  columns?: string[] | Partial<Record<Language, string>>;
  const?: unknown;
  default?: unknown;
  split?: string;
  extract?: string;
  prefix?: string;
  suffix?: string;
  stripHtml?: boolean;
  trim?: boolean;
  map?: Record<string, string | number | boolean>;
  true?: string[];
  false?: string[];
  timeZone?: string;
  language?: Language;
}

/** Shop exports whose rows need reshaping before mapping (src/map/transforms/). */
export const TRANSFORM_NAMES = ['shopify', 'woocommerce', 'magento', 'google-merchant'] as const;
export type TransformName = (typeof TRANSFORM_NAMES)[number];

export interface MappingJson {
  /** What to check or fill in, written by `genser init` (not read). */
  notes?: string[];
  transform?: TransformName;
  defaults?: Record<string, string | number | boolean>;
  format?: PayloadFormat;
  kind?: LegacyKind;
  language?: Language;
  country?: string;
  listSeparator?: string;
  number?: NumberFormatSpec;
  canonicalColumns?: boolean;
  fields: Record<string, string | FieldSpecJson>;
}

/** A column feeding a field, with the language it carries (multi-language fields). */
export interface ColumnSource {
  column: string;
  language?: Language;
}

/** One target field's rule, compiled: everything the per-row path needs, nothing built per row. */
export interface FieldRule {
  field: FieldDef;
  sources: ColumnSource[];
  constValue?: unknown;
  defaultValue?: unknown;
  split?: string;
  extract?: RegExp;
  prefix?: string;
  suffix?: string;
  stripHtml: boolean;
  trim: boolean;
  map?: Map<string, string | number | boolean>;
  number: NumberFormat;
  booleans: BooleanWords;
  /** IANA zone for dates without offset; undefined: the run's country. */
  zone?: string;
  language?: Language;
  /** From the mapping file (not a canonical column). */
  explicit: boolean;
}

export interface Mapping {
  file: string;
  /** The shop export's record transform, run before mapping. */
  transform?: TransformName;
  /** Values for rows that lack a field (the file's `defaults`, then `--set`). */
  defaults: FieldDefault[];
  /** Made only from `--set` entries: no file chose the columns, so unused ones are still worth a warning. */
  setOnly?: boolean;
  format?: PayloadFormat;
  kind?: LegacyKind;
  language?: Language;
  zone?: string;
  listSeparator?: string;
  number?: NumberFormat;
  canonicalColumns: boolean;
  rules: FieldRule[];
}

function pointerOf(e: ErrorObject): string {
  const extra =
    e.keyword === 'additionalProperties'
      ? `/${(e.params as { additionalProperty: string }).additionalProperty}`
      : e.keyword === 'required'
        ? `/${(e.params as { missingProperty: string }).missingProperty}`
        : '';
  return `${e.instancePath}${extra}` || '/';
}

function schemaProblem(errors: ErrorObject[]): { pointer: string; message: string } {
  // The deepest error is the most specific one (anyOf branches report on the parent too).
  // A wrong type from the other anyOf branch (string vs object) is the least useful of all.
  const rank = (e: ErrorObject) => pointerOf(e).length * 2 + (e.keyword === 'type' ? 0 : 1);
  const sorted = [...errors].sort((a, b) => rank(b) - rank(a));
  const e = sorted.find((x) => x.keyword !== 'anyOf') ?? sorted[0];
  let message = e.message ?? 'is invalid';
  if (e.keyword === 'additionalProperties') message = 'is not a known key';
  if (e.keyword === 'enum')
    message = `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`;
  if (e.keyword === 'required') message = 'is required';
  return { pointer: pointerOf(e), message };
}

/** What a mapping is read against: the run's format and kind; country and start for relative dates. */
export interface MappingContext {
  format: PayloadFormat;
  kind: LegacyKind;
  /** The run's country (its zone dates `today`); the file's own `country` wins. Default KR. */
  country?: string;
  /** ISO instant the run started; default now. */
  runDate?: string;
}

/** The run's clock for relative dates. */
export function runClock(ctx: { country?: string; runDate?: string }, zone?: string): RunClock {
  return {
    runDate: ctx.runDate ? new Date(ctx.runDate) : new Date(),
    zone: zone ?? timeZoneForCountry(ctx.country ?? 'KR'),
  };
}

type Bad = (pointer: string, message: string, hint?: string) => never;

/** The mapping file's JSON, checked against schemas/mapping.schema.json. */
function mappingJson(text: string, file: string): MappingJson {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new UsageError(
      `mapping file ${file} is not valid JSON: ${(err as Error).message}`,
      'fix the JSON syntax (an editor that knows schemas/mapping.schema.json helps)',
    );
  }
  const check = checkSchema('mapping', json);
  if (!check.valid) {
    const { pointer, message } = schemaProblem(check.errors);
    throw new UsageError(
      `mapping file ${file}: ${pointer} ${message}`,
      'see docs/feeds.md, "Mapping file", or point "$schema" at schemas/mapping.schema.json for completion',
    );
  }
  const [left, ...more] = findPlaceholders(json as MappingJson);
  if (left) {
    const others =
      more.length > 0 ? `, and ${more.length} more: ${more.map((m) => m.pointer).join(', ')}` : '';
    throw new UsageError(
      `mapping file ${file}: ${left.pointer} is still the placeholder genser init wrote (${JSON.stringify(left.value)})${others}; nothing is read or sent until ${more.length > 0 ? 'they are' : 'it is'} filled in`,
      `replace it with your own value: the file's "notes" say what each setting needs (docs/presets.md, "genser init FILE")`,
    );
  }
  return json as MappingJson;
}

/** A zone from a country code or IANA name, or the mapping's error at `pointer`. */
function zoneAt(value: string, pointer: string, bad: Bad): string {
  try {
    return timeZoneForCountry(value);
  } catch (err) {
    return bad(pointer, (err as Error).message, (err as UsageError).hint);
  }
}

/** Where a field's values come from: one column, a list of columns, or columns per language. */
function sourcesOf(
  spec: FieldSpecJson,
  field: FieldDef,
  target: string,
  at: string,
  bad: Bad,
): ColumnSource[] {
  const sources: ColumnSource[] = [];
  if (spec.column !== undefined) sources.push({ column: spec.column, language: spec.language });
  if (Array.isArray(spec.columns)) {
    for (const column of spec.columns) sources.push({ column, language: spec.language });
  } else if (spec.columns) {
    if (field.kind !== 'mltext' && field.kind !== 'mllist') {
      bad(`${at}/columns`, `gives columns per language, but ${target} is not a multi-language field`);
    }
    for (const [language, column] of Object.entries(spec.columns)) {
      sources.push({ column: column as string, language: language as Language });
    }
  }
  return sources;
}

interface RuleContext {
  set: ReturnType<typeof fieldSet>;
  format: MappingContext['format'];
  kind: MappingContext['kind'];
  m: MappingJson;
  number: NumberFormat | undefined;
  compileNumber: (spec: NumberFormatSpec, pointer: string) => NumberFormat;
  bad: Bad;
}

/** One entry of "fields" to its rule. */
function fieldRule(target: string, rawSpec: MappingJson['fields'][string], c: RuleContext): FieldRule {
  const { set, format, kind, bad } = c;
  const at = `/fields/${pointerToken(target)}`;
  const known = set.fields.map((f) => f.target).slice(0, 12);
  const field =
    findField(set, target) ??
    bad(
      at,
      `is not a ${format === 'standard' ? 'standard' : `legacy ${kind}`} field`,
      `known fields include ${known.join(', ')}${set.fields.length > 12 ? ', ...' : ''} (see docs/feeds.md)`,
    );
  const spec: FieldSpecJson = typeof rawSpec === 'string' ? { column: rawSpec } : rawSpec;
  const sources = sourcesOf(spec, field, target, at, bad);
  if (sources.length === 0 && spec.const === undefined && spec.default === undefined) {
    bad(at, 'needs "column", "columns", "const" or "default"');
  }
  const constant = constantIdentifier(field.target);
  if (constant && (spec.const !== undefined || spec.default !== undefined)) {
    bad(`${at}/${spec.const !== undefined ? 'const' : 'default'}`, constant.message, constant.hint);
  }
  if (spec.const !== undefined && sources.length > 0) {
    bad(`${at}/const`, 'cannot be combined with "column"/"columns"', 'use "default" for a fallback value');
  }
  let extract: RegExp | undefined;
  if (spec.extract !== undefined) {
    try {
      extract = new RegExp(spec.extract);
    } catch (err) {
      bad(`${at}/extract`, `is not a valid regular expression: ${(err as Error).message}`);
    }
  }
  const fieldZone = spec.timeZone !== undefined ? zoneAt(spec.timeZone, `${at}/timeZone`, bad) : undefined;
  const hasOwnNumber =
    spec.decimal !== undefined || spec.thousands !== undefined || spec.currencySymbols !== undefined;
  return {
    field,
    sources,
    constValue: spec.const,
    defaultValue: spec.default,
    split: spec.split,
    extract,
    prefix: spec.prefix,
    suffix: spec.suffix,
    stripHtml: spec.stripHtml ?? false,
    trim: spec.trim ?? true,
    map: spec.map ? new Map(Object.entries(spec.map)) : undefined,
    number: hasOwnNumber
      ? c.compileNumber({ ...c.m.number, ...pick(spec) }, at)
      : (c.number ?? DEFAULT_NUMBER_FORMAT),
    booleans: booleanWords(spec.true, spec.false),
    zone: fieldZone,
    language: spec.language,
    explicit: true,
  };
}

export function parseMapping(text: string, file: string, defaults: MappingContext): Mapping {
  const m = mappingJson(text, file);
  const bad: Bad = (pointer, message, hint) => {
    throw new UsageError(`mapping file ${file}: ${pointer} ${message}`, hint);
  };
  const format = defaults.format;
  const kind = defaults.kind;
  if (m.format !== undefined && m.format !== format) {
    bad('/format', `is "${m.format}" but this run is --format ${format}`, `run with --format ${m.format}`);
  }
  if (format === 'legacy' && m.kind !== undefined && m.kind !== kind) {
    bad('/kind', `is "${m.kind}" but this run is --kind ${kind}`, `run with --kind ${m.kind}`);
  }
  const set = fieldSet(format, kind);
  const zone = m.country !== undefined ? zoneAt(m.country, '/country', bad) : undefined;
  const compileNumber = (spec: NumberFormatSpec, pointer: string): NumberFormat => {
    try {
      return compileNumberFormat(spec);
    } catch (err) {
      return bad(pointer, (err as Error).message);
    }
  };
  const number = m.number ? compileNumber(m.number, '/number') : undefined;
  const context: RuleContext = { set, format, kind, m, number, compileNumber, bad };
  const rules = Object.entries(m.fields).map(([target, spec]) => fieldRule(target, spec, context));
  const clock = runClock(defaults, zone);
  const fieldDefaults: FieldDefault[] = [];
  for (const [target, value] of Object.entries(m.defaults ?? {})) {
    const field = findField(set, target);
    const constant = field && constantIdentifier(field.target);
    if (constant) bad(`/defaults/${pointerToken(target)}`, constant.message, constant.hint);
    try {
      fieldDefaults.push(fieldDefault(set, target, value, `defaults/${target}`, clock));
    } catch (err) {
      bad(`/defaults/${pointerToken(target)}`, 'is not a known field', (err as UsageError).hint);
    }
  }
  return {
    file,
    transform: m.transform,
    defaults: fieldDefaults,
    format: m.format,
    kind: m.kind,
    language: m.language,
    zone,
    listSeparator: m.listSeparator,
    number,
    canonicalColumns: m.canonicalColumns ?? true,
    rules,
  };
}

function pick(spec: FieldSpecJson): NumberFormatSpec {
  const out: NumberFormatSpec = {};
  if (spec.decimal !== undefined) out.decimal = spec.decimal;
  if (spec.thousands !== undefined) out.thousands = spec.thousands;
  if (spec.currencySymbols !== undefined) out.currencySymbols = spec.currencySymbols;
  return out;
}

export function loadMapping(path: string, defaults: MappingContext): Mapping {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(
      code === 'ENOENT' ? `mapping file ${path} does not exist` : `cannot read mapping file ${path}: ${code}`,
      'check the --mapping path',
    );
  }
  return parseMapping(text.replace(/^\uFEFF/, ''), path, defaults);
}

/**
 * A mapping file's own run settings (`format`, `kind`), read before the run so they can apply
 * where the user set nothing. Problems are left to `loadMapping`, which reports them in full.
 */
export function readMappingDefaults(path: string): { format?: PayloadFormat; kind?: LegacyKind } {
  try {
    const json = JSON.parse(readFileSync(path, 'utf8').replace(/^\uFEFF/, '')) as Record<string, unknown>;
    const format = json.format === 'standard' || json.format === 'legacy' ? json.format : undefined;
    const kind = ['products', 'contents', 'filters'].includes(json.kind as string)
      ? (json.kind as LegacyKind)
      : undefined;
    return { format, kind };
  } catch {
    return {};
  }
}
