import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { schemasDir } from '../shared/paths.js';

/**
 * The JSON Schemas in schemas/ are the contract as data; the CLI and the sandbox use the same
 * files. Every schema is loaded once per process and each validator compiled once, on first use.
 *
 * A schema is named by its path below schemas/ without `.schema.json`:
 * `standard-product`, `legacy-product`, `events/view_product`, ...
 * Schemas refer to each other by their `$id` (`https://genser.dev/schemas/<name>.schema.json`).
 */
export const SCHEMA_ID_BASE = 'https://genser.dev/schemas/';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * Two compilations of the same schemas. `first` stops at the first error: its time is linear in
 * the data, so it is what every value a client sends goes through. `all` (ajv's `allErrors`)
 * lists every error, but its time grows with the square of the number of errors (each failing
 * `$ref` copies the errors so far), so it only ever sees a bounded view of data that `first`
 * found invalid (src/schema/bounded.ts); ajv's security notes say the same.
 */
type Mode = 'first' | 'all';
const instances = new Map<Mode, Ajv2020>();
const compiled: Record<Mode, Map<string, ValidateFunction>> = { first: new Map(), all: new Map() };

/** Every `.schema.json` file under `dir`, recursively. */
export function listSchemaFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...listSchemaFiles(path));
    else if (entry.endsWith('.schema.json')) out.push(path);
  }
  return out;
}

export function schemaName(path: string): string {
  return relative(schemasDir, path)
    .replace(/\\/g, '/')
    .replace(/\.schema\.json$/, '');
}

const parsed = new Map<string, Record<string, unknown>>();

/** A bundled schema's JSON, read once; the validators are compiled from these objects (do not change them). */
export function schemaJson(name: string): Record<string, unknown> {
  const cached = parsed.get(name);
  if (cached) return cached;
  const file = join(schemasDir, `${name}.schema.json`);
  const schema: Record<string, unknown> = JSON.parse(readFileSync(file, 'utf8'));
  parsed.set(name, schema);
  return schema;
}

function getAjv(mode: Mode): Ajv2020 {
  const existing = instances.get(mode);
  if (existing) return existing;
  // validateSchema off: the bundled schemas are checked against their meta-schema by the tests
  // (test/validate/schema-files.test.ts), not at every start, where the check cost more than
  // compiling the product schema.
  const instance = new Ajv2020({
    allErrors: mode === 'all',
    strict: false,
    allowUnionTypes: true,
    validateSchema: false,
  });
  addFormats(instance);
  for (const file of listSchemaFiles(schemasDir)) {
    const schema = schemaJson(schemaName(file));
    const id = (schema.$id as string | undefined) ?? `${SCHEMA_ID_BASE}${schemaName(file)}.schema.json`;
    instance.addSchema(schema, id);
  }
  instances.set(mode, instance);
  return instance;
}

function compiledFor(mode: Mode, name: string): ValidateFunction {
  let fn = compiled[mode].get(name);
  if (!fn) {
    const found = getAjv(mode).getSchema(`${SCHEMA_ID_BASE}${name}.schema.json`);
    if (!found) throw new Error(`no bundled schema named "${name}" in ${schemasDir}`);
    fn = found;
    compiled[mode].set(name, fn);
  }
  return fn;
}

/**
 * The validator for a schema name (see above), compiled once. It stops at the first error (its
 * `errors` hold one), so its time is linear in the data; `checkSchema` (bounded.ts) lists more.
 */
export function getValidator(name: string): ValidateFunction {
  return compiledFor('first', name);
}

/** The all-errors validator: quadratic in the number of errors, so only for bounded views. */
export function getAllErrorsValidator(name: string): ValidateFunction {
  return compiledFor('all', name);
}

/**
 * A validator for a schema made at run time whose references point into the bundled ones
 * (src/validate/plan-schema.ts), compiled beside the all-errors validators (one ajv instance, not
 * a second: making one costs as much as compiling a schema). So it is quadratic in the number
 * of errors too: give it only data within the bounded view (bounded.ts). ajv keeps no copy of
 * the schema; the caller holds the function.
 */
export function compileBeside(schema: Record<string, unknown>): ValidateFunction {
  const ajv = getAjv('all');
  const fn = ajv.compile(schema);
  ajv.removeSchema(schema);
  return fn;
}
