import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { buildPlan } from '../../src/map/plan.js';
import { listSchemaFiles, schemaJson, schemaName } from '../../src/schema/schemas.js';
import { schemasDir } from '../../src/shared/paths.js';
import { provenPaths, reducedSchema } from '../../src/validate/plan-schema.js';

/**
 * genser compiles its bundled schemas without checking them against their meta-schema at every
 * start (src/schema/schemas.ts: the check cost more than compiling): this is where they are checked.
 */
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const meta = addFormats(new Ajv2020({ strict: false, allowUnionTypes: true }));

describe('the bundled schemas against the JSON Schema 2020-12 meta-schema', () => {
  it.each(listSchemaFiles(schemasDir).map(schemaName))('%s is a valid schema', (name) => {
    expect(meta.validateSchema(schemaJson(name)), JSON.stringify(meta.errors)).toBe(true);
  });

  it('the check refuses a broken schema', () => {
    expect(meta.validateSchema({ type: 'strnig', properties: { a: { minLength: -1 } } })).toBe(false);
  });

  it("a mapping plan's copy of the product schema is a valid schema", () => {
    const plan = buildPlan(
      ['sku', 'name@ko', 'brand_id', 'category_name', 'description@en', 'availability'],
      {
        format: 'standard',
        kind: 'products',
        language: 'ko',
        zone: 'Asia/Seoul',
      },
    );
    const copy = reducedSchema('standard-product', provenPaths(plan, 'standard-product'));
    expect(meta.validateSchema(copy), JSON.stringify(meta.errors)).toBe(true);
  });
});
