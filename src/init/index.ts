import { readFileSync } from 'node:fs';
import type { ReaderOptions } from '../feed/index.js';
import { fieldSet } from '../map/fields.js';
import { currencyFor, fillHint, REQUIRED_TARGETS } from '../map/fill-hints.js';
import type { FieldSpecJson, MappingJson } from '../map/mapping-file.js';
import { canonicalTarget } from '../map/plan.js';
import { presetPath } from '../map/presets.js';
import { suggestPreset } from '../map/suggest-preset.js';
import { readFeed } from '../read/index.js';
import { UsageError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { guessLanguage, specFor, targetByName, targetByValues } from './guess.js';

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
  const preset = suggestPreset(header);
  if (preset) return fromPreset(preset, header, rows.length, options.country);
  const values = (column: string) => rows.map((r) => asText(r[column]));
  const fields: Record<string, string | FieldSpecJson> = {};
  const mapped: InitResult['mapped'] = [];
  const left: string[] = [];
  // Columns already named as genser's canonical columns (name@ko, brand_id, ...) map themselves
  // (`canonicalColumns`); only the others are guessed.
  const canonical = new Set<string>();
  const set = fieldSet('standard');
  for (const column of header) {
    const hit = canonicalTarget(set, column);
    if (!hit) continue;
    canonical.add(hit.field.target);
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
  // One brand column names the brand and gives its id.
  const given = (t: string) => fields[t] !== undefined || canonical.has(t);
  if (given('brand_name') && !given('brand_id') && fields.brand_name !== undefined)
    fields.brand_id = fields.brand_name;
  if (given('sku') && !given('mpn') && fields.sku !== undefined) fields.mpn = fields.sku;
  const texts = [
    ...header,
    ...['name', 'description'].flatMap((t) => {
      const s = fields[t];
      const column = typeof s === 'string' ? s : s?.column;
      return column ? values(column) : [];
    }),
  ];
  const language = guessLanguage(texts);
  const mapping = {
    $schema: SCHEMA,
    description: `Written by genser init from ${file}: check each field, then run genser validate ${file} --mapping THIS FILE.`,
    format: 'standard' as const,
    language,
    canonicalColumns: canonical.size > 0,
    fields,
  };
  const missing = REQUIRED_TARGETS.filter((t) => !given(t)).map((target) => ({
    target,
    hint: fillHint(target, options.country),
  }));
  return { mapping, mapped, unmapped, missing, rowsRead: rows.length };
}

function fromPreset(preset: string, header: string[], rowsRead: number, country?: string): InitResult {
  const json = JSON.parse(readFileSync(presetPath(preset), 'utf8')) as MappingJson & { description: string };
  const fields = json.fields;
  const used = new Set<string>();
  const mapped: InitResult['mapped'] = [];
  for (const [target, spec] of Object.entries(fields)) {
    const s: FieldSpecJson = typeof spec === 'string' ? { column: spec } : spec;
    const columns = [
      ...(s.column ? [s.column] : []),
      ...(Array.isArray(s.columns) ? s.columns : Object.values(s.columns ?? {})),
    ];
    for (const column of columns) {
      used.add(column);
      if (header.includes(column) || column.startsWith('genser:'))
        mapped.push({ column, target, by: 'preset' });
    }
  }
  const { defaults, notes, fieldsWritten } = exportSettings(preset, fields, country ?? 'KR');
  const missing = REQUIRED_TARGETS.filter(
    (t) => fieldsWritten[t] === undefined && defaults[t] === undefined,
  ).map((target) => ({ target, hint: fillHint(target, country) }));
  return {
    mapping: {
      $schema: SCHEMA,
      description: `genser's ${preset} preset (docs/presets.md). ${json.description}`,
      notes,
      ...withoutSchema(json),
      defaults: { ...json.defaults, ...defaults },
      fields: fieldsWritten,
    },
    preset,
    mapped,
    unmapped: header.filter((c) => !used.has(c)),
    missing,
    rowsRead,
  };
}

function withoutSchema(json: MappingJson & { $schema?: string; description: string }): MappingJson {
  const { $schema: _s, description: _d, ...rest } = json;
  return rest;
}

/**
 * What a shop export cannot hold, written into the mapping so that the next run needs no --set:
 * the currency (the country's), the sale window (from the run, a year long), and for Magento
 * the base URL of its relative image paths. Each comes with a note saying what to check.
 */
function exportSettings(
  preset: string,
  fields: MappingJson['fields'],
  country: string,
): { defaults: Record<string, string>; notes: string[]; fieldsWritten: MappingJson['fields'] } {
  const currency = currencyFor(country);
  const defaults: Record<string, string> = {};
  const notes: string[] = [];
  const fieldsWritten = { ...fields };
  if (fields.currency === undefined) {
    defaults.currency = currency;
    notes.push(
      `defaults.currency is ${currency}, the currency of --country ${country.toUpperCase()}: the export does not say; change it if your shop sells in another`,
    );
  }
  if (fields.availability_starts === undefined && fields.availability_ends === undefined) {
    defaults.availability_starts = 'today';
    defaults.availability_ends = '+1y';
    notes.push(
      'defaults.availability_starts/availability_ends: the export has no sale window; each run sends one from its own day for a year (today, +1y): set dates if your products have their own',
    );
  }
  if (preset === 'magento') {
    const image = fields.image_urls;
    const spec: FieldSpecJson = typeof image === 'string' ? { column: image } : { ...image };
    spec.prefix = 'https://shop.example.com/media/catalog/product';
    fieldsWritten.image_urls = spec;
    notes.push(
      "fields.image_urls.prefix: Magento's image paths are relative to your store's media URL: replace https://shop.example.com with your store's address before the first upload",
    );
  }
  return { defaults, notes, fieldsWritten };
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
  if (result.unmapped.length > 0)
    lines.push(`Not mapped (${result.unmapped.length}): ${result.unmapped.join(', ')}`);
  if (result.missing.length > 0) {
    lines.push('Required fields no column gives:');
    for (const m of result.missing) lines.push(`  ${m.target}: ${m.hint}`);
  }
  lines.push(`Wrote ${written}; check it, then: genser validate FILE --mapping ${written}`);
  return lines;
}
