import { readFileSync } from 'node:fs';
import type { ReaderOptions } from '../feed/index.js';
import { fieldSet } from '../map/fields.js';
import { fillHint, REQUIRED_TARGETS } from '../map/fill-hints.js';
import type { FieldSpecJson, MappingJson } from '../map/mapping-file.js';
import { FILL_IN, findPlaceholders } from '../map/placeholders.js';
import { canonicalTarget } from '../map/plan.js';
import { presetPath } from '../map/presets.js';
import { suggestPreset } from '../map/suggest-preset.js';
import { TRANSFORM_READS, transformColumn } from '../map/transforms/index.js';
import { readFeed } from '../read/index.js';
import { UsageError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { guessLanguage, specFor, targetByName, targetByValues } from './guess.js';
import { type ExportSettings, exportSettings } from './settings.js';

/**
 * `genser init FILE`: reads the header and a sample of rows, and writes the mapping that reads
 * the file. A known shop export gets its preset; otherwise each column is guessed from its name,
 * then from its values. The result says what was mapped, what was left, and which required
 * fields no column gives (with the flag or mapping line that fills each).
 */
export interface InitOptions extends ReaderOptions {
  /** Rows read to guess from values (default 50). */
  sampleRows?: number;
  /** The run's country, for the currency a hint suggests (default KR). */
  country?: string;
}

export interface InitResult {
  /** The mapping file's content, ready to write as JSON. */
  mapping: MappingJson & { $schema: string; description: string };
  /** A known shop export: the preset the mapping copies. */
  preset?: string;
  mapped: { column: string; target: string; by: 'name' | 'values' | 'preset' }[];
  /** A shop export: the columns its transform reads to make its rows (merging, leaving out, prices). */
  readByTransform: string[];
  unmapped: string[];
  /** Required fields no column gives, with how to fill each. */
  missing: { target: string; hint: string }[];
  rowsRead: number;
}

const SCHEMA = './node_modules/genser/schemas/mapping.schema.json';

async function sample(file: string, options: InitOptions, log: Logger) {
  const limit = options.sampleRows ?? 50;
  let header: string[] | undefined;
  const rows: Record<string, unknown>[] = [];
  for await (const item of readFeed(file, options, log)) {
    if (item.type !== 'record') continue;
    header ??= Object.keys(item.record.fields);
    rows.push(item.record.fields);
    if (rows.length >= limit) break;
  }
  if (!header) {
    throw new UsageError(
      `${file} has no data rows to learn from`,
      'give init an export with its header and some rows',
    );
  }
  return { header, rows };
}

const asText = (v: unknown) =>
  v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v);

export async function initMapping(file: string, options: InitOptions, log: Logger): Promise<InitResult> {
  const { header, rows } = await sample(file, options, log);
  const country = options.country ?? 'KR';
  const preset = suggestPreset(header);
  if (preset) return fromPreset(preset, header, rows, country);
  const values = (column: string) => rows.map((r) => asText(r[column]));
  const fields: Record<string, string | FieldSpecJson> = {};
  const mapped: InitResult['mapped'] = [];
  const left: string[] = [];
  // Columns already named as genser's canonical columns (name@ko, brand_id, ...) map themselves
  // (`canonicalColumns`); only the others are guessed.
  const canonical = new Map<string, string>();
  const set = fieldSet('standard');
  for (const column of header) {
    const hit = canonicalTarget(set, column);
    if (!hit) continue;
    canonical.set(hit.field.target, column);
    mapped.push({ column, target: hit.field.target, by: 'name' });
  }
  // Names first (they say what the merchant meant), then values for the columns names did not place.
  for (const column of header) {
    if (canonicalTarget(set, column)) continue;
    const target = targetByName(column);
    if (target && !(target in fields) && !canonical.has(target)) {
      fields[target] = specFor(target, column, values(column));
      mapped.push({ column, target, by: 'name' });
    } else left.push(column);
  }
  const unmapped: string[] = [];
  for (const column of left) {
    const guess = targetByValues(column, values(column));
    if (guess && !(guess.target in fields) && !canonical.has(guess.target)) {
      fields[guess.target] = guess.spec ?? column;
      mapped.push({ column, target: guess.target, by: 'values' });
    } else unmapped.push(column);
  }
  const given = (t: string) => fields[t] !== undefined || canonical.has(t);
  // One brand column names the brand and gives its id; the SKU is the part number when no
  // column says otherwise. A canonical column that feeds a second field is written out for both:
  // a column a mapping reads is no longer read as a canonical column.
  for (const [from, to] of [
    ['brand_name', 'brand_id'],
    ['sku', 'mpn'],
  ]) {
    if (!given(from) || given(to)) continue;
    const column = canonical.get(from);
    if (column !== undefined) fields[from] = column;
    fields[to] = fields[from];
  }
  const texts = [
    ...header,
    ...['name', 'description'].flatMap((t) => {
      const column = sourceColumn(fields[t]);
      return column ? values(column) : [];
    }),
  ];
  const settings = exportSettings(given, fields, { country, prices: priceTexts(header, rows) });
  const mapping = {
    $schema: SCHEMA,
    description: `Written by genser init from ${file}: fill in what "notes" name, then run genser validate ${file} --mapping THIS FILE.`,
    notes: settings.notes,
    format: 'standard' as const,
    language: guessLanguage(texts),
    canonicalColumns: canonical.size > 0,
    defaults: settings.defaults,
    fields: settings.fields,
  };
  return {
    mapping,
    mapped,
    readByTransform: [],
    unmapped,
    missing: missingOf(given, settings, country),
    rowsRead: rows.length,
  };
}

/** The sampled values of every column named like a price (`Variant Price`, `Regular price`, `판매가`). */
const priceTexts = (header: string[], rows: Record<string, unknown>[]) =>
  header.filter((c) => targetByName(c) === 'price').flatMap((c) => rows.map((r) => asText(r[c])));

const sourceColumn = (spec: string | FieldSpecJson | undefined) =>
  typeof spec === 'string' ? spec : spec?.column;

/** Required fields that neither a column nor a written setting gives, with how to fill each. */
function missingOf(
  given: (t: string) => boolean,
  settings: ExportSettings,
  country: string,
  preset?: { name: string; fields: MappingJson['fields'] },
) {
  return REQUIRED_TARGETS.filter((t) => !given(t) && settings.defaults[t] === undefined).map((target) => {
    const spec = preset?.fields[target];
    if (!preset || spec === undefined) return { target, hint: fillHint(target, country) };
    // Where the shop keeps it, so the merchant adds it there (Magento: an attribute).
    const columns = specColumns(spec);
    const codes = columns.filter((c) => c.startsWith('attr.')).map((c) => `${c.slice('attr.'.length)}=`);
    const where = [
      ...columns.filter((c) => !c.startsWith('attr.')).map((c) => JSON.stringify(c)),
      ...(codes.length > 0 ? [`additional_attributes (${codes.join(', ')})`] : []),
    ];
    return {
      target,
      hint: `the ${preset.name} preset reads it from ${where.join(' or ')}, and this export has none: add it there, or ${fillHint(target, country)}`,
    };
  });
}

/** The columns a preset's field reads. */
function specColumns(spec: string | FieldSpecJson): string[] {
  const s: FieldSpecJson = typeof spec === 'string' ? { column: spec } : spec;
  return [
    ...(s.column ? [s.column] : []),
    ...(Array.isArray(s.columns) ? s.columns : Object.values(s.columns ?? {})),
  ];
}

/**
 * Whether the export holds a column a preset reads: in its header, made by the preset's
 * transform (`genser:...`), or, for Magento's `attr.CODE`, an attribute the sampled rows'
 * `additional_attributes` carry (or a column of that code).
 */
function holds(column: string, header: string[], rows: Record<string, unknown>[]): boolean {
  if (header.includes(column) || column.startsWith('genser:')) return true;
  if (!column.startsWith('attr.')) return false;
  const code = column.slice('attr.'.length);
  if (header.includes(code)) return true;
  return rows.some((r) =>
    asText(r.additional_attributes)
      .split(',')
      .some((kv) => kv.trim().startsWith(`${code}=`)),
  );
}

function fromPreset(
  preset: string,
  header: string[],
  rows: Record<string, unknown>[],
  country: string,
): InitResult {
  const json = JSON.parse(readFileSync(presetPath(preset), 'utf8')) as MappingJson & { description: string };
  const named = (c: string) => transformColumn(json.transform, c);
  const names = header.map(named);
  const used = new Set<string>();
  const mapped: InitResult['mapped'] = [];
  const held = new Set<string>();
  for (const [target, spec] of Object.entries(json.fields)) {
    for (const column of specColumns(spec)) {
      used.add(column);
      if (column.startsWith('attr.')) used.add(column.slice('attr.'.length));
      if (!holds(column, names, rows)) continue;
      held.add(target);
      mapped.push({ column, target, by: 'preset' });
    }
  }
  const given = (t: string) => held.has(t) || json.defaults?.[t] !== undefined;
  const reads = new Set(json.transform ? TRANSFORM_READS[json.transform] : []);
  const readByTransform = header.filter((c) => reads.has(named(c)));
  const settings = exportSettings(given, json.fields, { country, preset, prices: priceTexts(header, rows) });
  return {
    mapping: {
      $schema: SCHEMA,
      // Not the preset's own description: it tells --set users what to add, which init has done.
      description: `Written by genser init with genser's ${preset} preset (docs/presets.md): what the export cannot hold is under "defaults" and "fields", each named in "notes"; a value left as "FILL IN: ..." stops every run until it is filled in.`,
      notes: settings.notes,
      ...withoutSchema(json),
      defaults: { ...json.defaults, ...settings.defaults },
      fields: settings.fields,
    },
    preset,
    mapped,
    readByTransform,
    unmapped: header.filter((c) => !used.has(named(c)) && !reads.has(named(c))),
    missing: missingOf(given, settings, country, { name: preset, fields: json.fields }),
    rowsRead: rows.length,
  };
}

function withoutSchema(json: MappingJson & { $schema?: string; description: string }): MappingJson {
  const { $schema: _s, description: _d, ...rest } = json;
  return rest;
}

/** What init prints on stderr (the lead's command writes the mapping and these lines). */
export function initSummaryLines(result: InitResult, written: string): string[] {
  const lines: string[] = [];
  if (result.preset)
    lines.push(
      `This is a ${result.preset} export: ${written} copies the ${result.preset} preset (or use --preset ${result.preset}).`,
    );
  lines.push(`Mapped (${result.mapped.length}):`);
  for (const m of result.mapped)
    lines.push(`  ${m.column} -> ${m.target}${m.by === 'values' ? ' (from its values)' : ''}`);
  if (result.readByTransform.length > 0)
    lines.push(
      `Read by the ${result.preset} transform (${result.readByTransform.length}): ${result.readByTransform.join(', ')}`,
    );
  if (result.unmapped.length > 0)
    lines.push(`Not mapped (${result.unmapped.length}): ${result.unmapped.join(', ')}`);
  if (result.missing.length > 0) {
    lines.push('Required fields no column gives:');
    for (const m of result.missing) lines.push(`  ${m.target}: ${m.hint}`);
  }
  const notes = result.mapping.notes ?? [];
  if (notes.length > 0) {
    const toFill = findPlaceholders(result.mapping).length > 0;
    lines.push(
      `What the export cannot say, written into ${written} ("notes"${toFill ? `; replace each "${FILL_IN}" value before the first run` : ''}):`,
    );
    for (const n of notes) lines.push(`  ${n}`);
  }
  lines.push(`Wrote ${written}; check it, then: genser validate FILE --mapping ${written}`);
  return lines;
}
