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

let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

function listSchemaFiles(dir: string): string[] {
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

function getAjv(): Ajv2020 {
  if (ajv) return ajv;
  const instance = new Ajv2020({ allErrors: true, strict: false, allowUnionTypes: true });
  addFormats(instance);
  for (const file of listSchemaFiles(schemasDir)) {
    const schema = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    const id = (schema.$id as string | undefined) ?? `${SCHEMA_ID_BASE}${schemaName(file)}.schema.json`;
    instance.addSchema(schema, id);
  }
  ajv = instance;
  return instance;
}

/** The compiled validator for a schema name (see above). Compiled once, then cached. */
export function getValidator(name: string): ValidateFunction {
  let fn = compiled.get(name);
  if (!fn) {
    const found = getAjv().getSchema(`${SCHEMA_ID_BASE}${name}.schema.json`);
    if (!found) throw new Error(`no bundled schema named "${name}" in ${schemasDir}`);
    fn = found;
    compiled.set(name, fn);
  }
  return fn;
}
