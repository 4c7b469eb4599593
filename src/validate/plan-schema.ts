import type { ValidateFunction } from 'ajv';
import type { FieldRule } from '../map/mapping-file.js';
import type { Plan } from '../map/plan.js';
import { compileBeside, SCHEMA_ID_BASE, schemaJson } from '../schema/schemas.js';

/**
 * The schema check a mapping plan leaves to each row. The standard builder writes some values
 * that hold by construction (a `@type` constant, a trimmed non-empty text, an availability the
 * parser returned, a language of the plan): the plan proves them once per header, and the row's
 * valid/invalid decision runs a copy of the bundled schema with those values' subschemas
 * replaced by `true`. Every other keyword (`required`, types, patterns, enums, the branches) is
 * kept, so the copy accepts a built payload only when the full schema does; a row it refuses
 * goes through the full check, which words its problems exactly as before.
 */
type Json = Record<string, unknown>;

/** When a target's value holds by construction: `text` when trimmed and not mapped, `language` when the plan's languages are the schema's. */
type Condition = 'always' | 'text' | 'language';

/** Standard payload paths (no indices) the builder writes from each target, and when they hold. */
const STANDARD_WRITES: [target: string, path: string, holds: Condition[]][] = [
  ['sku', 'sku', ['text']],
  ['sku', 'offers.sku', ['text']],
  ['offer_sku', 'offers.sku', ['text']],
  ['name', 'name', ['text', 'language']],
  ['brand_id', 'brand.@id', ['text']],
  ['brand_name', 'brand.name', ['text', 'language']],
  ['brand_logo', 'brand.logo', ['always']],
  ['category_name', 'category.name', ['text', 'language']],
  ['category_code', 'category.codeValue', ['text']],
  ['description', 'description.text', ['text']],
  ['description', 'description.inLanguage', ['language']],
  ['seo_description', 'description.inLanguage', ['language']],
  ['seo_description', 'description.additionalProperty', ['always']],
  ['availability', 'offers.availability', ['always']],
  ['mpn', 'offers.mpn', ['text']],
  ['seo_title', 'additionalProperty', ['always']],
  ['html', 'additionalProperty', ['always']],
  ['hs_code', 'additionalProperty', ['always']],
  ['sustainability_tags', 'additionalProperty', ['always']],
  ['positive_notes', 'positiveNotes', ['text', 'language']],
  ['material', 'material', ['text', 'language']],
  ['unit_code', 'offers.priceSpecification.unitCode', ['text']],
  ['item_condition', 'itemCondition', ['always']],
  ['has_adult_consideration', 'hasAdultConsideration', ['always']],
  ['country_of_origin', 'countryOfOrigin', ['always']],
  ['shipping_weight', 'offers.shippingDetails', ['always']],
  ['shipping_weight_unit', 'offers.shippingDetails', ['always']],
];

/** The constants the standard builder writes on every node it makes. */
const STANDARD_CONSTANTS = [
  '@type',
  'brand.@type',
  'category.@type',
  'description.@type',
  'offers.@type',
  'offers.image.@type',
];

/**
 * What the standard builder writes at these paths whenever it writes them: an object, or a list
 * of objects. A schema's `if: {type}` there always takes the same branch, so the copy keeps
 * only that branch.
 */
const STANDARD_SHAPES: [path: string, shape: Shape][] = [
  ['brand', 'object'],
  ['offers', 'object'],
  ['category', 'objects'],
  ['description', 'objects'],
  ['offers.image', 'objects'],
];

/**
 * A text is non-empty with a non-space character when the mapper trimmed it and nothing replaced
 * it after (`trim` removes exactly what `\s` matches); a scalar's constant or default is taken
 * as written, so it proves nothing.
 */
function textHolds(rule: FieldRule): boolean {
  if (!rule.trim || rule.map !== undefined) return false;
  const kind = rule.field.kind;
  const scalar = kind !== 'mltext' && kind !== 'mllist' && kind !== 'list';
  return !scalar || (rule.constValue === undefined && rule.defaultValue === undefined);
}

function languagesHold(rule: FieldRule, plan: Plan, allowed: readonly unknown[]): boolean {
  const fallback = rule.language ?? plan.language;
  return allowed.includes(fallback) && rule.sources.every((s) => allowed.includes(s.language ?? fallback));
}

/** The payload paths whose every writer the plan proves (plus the builder's constants). */
export function provenPaths(plan: Plan, name: string): string[] {
  if (name !== 'standard-product') return [];
  const languages = (schemaJson('common').$defs as Json).languageTag as Json;
  const allowed = languages.enum as unknown[];
  const byTarget = new Map(plan.rules.map((r) => [r.field.target, r]));
  const verdict = new Map<string, boolean>();
  for (const [target, path, holds] of STANDARD_WRITES) {
    const rule = byTarget.get(target);
    if (!rule) continue;
    const ok = holds.every((h) =>
      h === 'always' ? true : h === 'text' ? textHolds(rule) : languagesHold(rule, plan, allowed),
    );
    verdict.set(path, (verdict.get(path) ?? true) && ok);
  }
  // offers.sku is the sku's in a row without offer_sku: proven only when both are.
  if (byTarget.has('offer_sku') && byTarget.has('sku') && verdict.get('sku') === false)
    verdict.set('offers.sku', false);
  const proven = [...verdict].filter(([, ok]) => ok).map(([path]) => path);
  return [...STANDARD_CONSTANTS, ...proven].sort();
}

/** `#/...` references made absolute, so a copy still reaches the bundled schema's definitions. */
function absolute(node: unknown, base: string): unknown {
  if (Array.isArray(node)) return node.map((n) => absolute(n, base));
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#') ? base + v : absolute(v, base);
  }
  return out;
}

/** A `$ref` (absolute, into a bundled schema) resolved to its node and that schema's base. */
function resolveRef(ref: string): { node: Json; base: string } {
  const [base, pointer = ''] = ref.split('#');
  let node: unknown = schemaJson(base.slice(SCHEMA_ID_BASE.length).replace(/\.schema\.json$/, ''));
  for (const part of pointer.split('/').filter(Boolean)) node = (node as Json)[part];
  return { node: node as Json, base };
}

type Shape = 'object' | 'objects';

interface Trie {
  proven: boolean;
  shape?: Shape;
  next: Map<string, Trie>;
}

function trieOf(paths: string[], shapes: [string, Shape][]): Trie {
  const root: Trie = { proven: false, shape: 'object', next: new Map() };
  const at = (path: string) => {
    let t = root;
    for (const key of path.split('.')) {
      let n = t.next.get(key);
      if (!n) {
        n = { proven: false, next: new Map() };
        t.next.set(key, n);
      }
      t = n;
    }
    return t;
  };
  for (const path of paths) at(path).proven = true;
  for (const [path, shape] of shapes) at(path).shape = shape;
  return root;
}

/** The JSON Schema type of a value of this shape: a list of objects is a list, its items objects. */
type Known = 'object' | 'array' | undefined;

/** Whether `if: {type: T}` holds for a value of type `known`; undefined when it cannot be told. */
function ifHolds(node: Json, known: Known): boolean | undefined {
  const test = node.if as Json | undefined;
  if (!known || !test || Object.keys(test).length !== 1 || typeof test.type !== 'string') return undefined;
  return test.type === known;
}

/**
 * The node with the subschemas of proven keys replaced by `true`, through references and the
 * branches that apply to the same value (`allOf`, `then`, `else`, `items`: lists are transparent
 * in payload paths), and an `if` whose answer the value's shape gives replaced by its branch.
 * `known`: the type of every value this node is applied to, when the builder fixes it.
 */
function reduce(node: Json, base: string, trie: Trie, known: Known): Json {
  if (typeof node.$ref === 'string') {
    const target = resolveRef(node.$ref.startsWith('#') ? base + node.$ref : node.$ref);
    const { $ref: _, ...rest } = node;
    return { ...reduce(rest, base, trie, known), allOf: [reduce(target.node, target.base, trie, known)] };
  }
  const holds = ifHolds(node, known);
  if (holds !== undefined) {
    const { if: _, then, else: otherwise, ...rest } = node;
    const branch = (holds ? then : otherwise) as Json | undefined;
    const out = reduce(rest, base, trie, known);
    return branch
      ? { ...out, allOf: [...((out.allOf as Json[]) ?? []), reduce(branch, base, trie, known)] }
      : out;
  }
  const out = absolute(node, base) as Json;
  delete out.$id;
  delete out.$defs;
  for (const key of ['then', 'else'] as const) {
    if (node[key] && typeof node[key] === 'object') out[key] = reduce(node[key] as Json, base, trie, known);
  }
  if (node.items && typeof node.items === 'object')
    out.items = reduce(node.items as Json, base, trie, trie.shape === 'objects' ? 'object' : undefined);
  if (Array.isArray(node.allOf)) out.allOf = (node.allOf as Json[]).map((s) => reduce(s, base, trie, known));
  const props = node.properties as Record<string, Json> | undefined;
  if (props) {
    const reduced: Record<string, unknown> = {};
    for (const [key, sub] of Object.entries(props)) {
      const t = trie.next.get(key);
      reduced[key] = !t ? absolute(sub, base) : t.proven ? true : reduce(sub, base, t, knownOf(t));
    }
    out.properties = reduced;
  }
  return out;
}

function knownOf(t: Trie): Known {
  return t.shape === 'object' ? 'object' : t.shape === 'objects' ? 'array' : undefined;
}

/** The bundled schema with the proven paths' subschemas replaced by `true`. */
export function reducedSchema(name: string, proven: string[]): Json {
  const root = schemaJson(name);
  const shapes = name === 'standard-product' ? STANDARD_SHAPES : [];
  return reduce(root, root.$id as string, trieOf(proven, shapes), 'object');
}

/**
 * Compiled copies by what they leave out, so a JSON feed whose rows vary in keys compiles each
 * distinct copy once. A handful at most in practice; bounded so memory cannot grow with a feed.
 */
const COPIES_MAX = 32;
const copies = new Map<string, ValidateFunction>();
/**
 * Each plan's copy for the schema it was last asked for: one lookup per row, and a plan checked
 * against another schema gets that schema's copy, never the first one's.
 */
const byPlan = new WeakMap<Plan, { name: string; fn: ValidateFunction | undefined }>();

/**
 * The valid/invalid decision for rows built with `plan` (for data within the bounded view):
 * true only when the full schema says valid; undefined when the plan proves nothing.
 */
export function planAccepts(plan: Plan, name: string): ValidateFunction | undefined {
  const known = byPlan.get(plan);
  if (known?.name === name) return known.fn;
  const proven = provenPaths(plan, name);
  let fn: ValidateFunction | undefined;
  if (proven.length > 0) {
    const key = `${name}\n${proven.join('\n')}`;
    fn = copies.get(key) ?? compileBeside(reducedSchema(name, proven));
    if (!copies.has(key)) {
      if (copies.size >= COPIES_MAX) copies.clear();
      copies.set(key, fn);
    }
  }
  byPlan.set(plan, { name, fn });
  return fn;
}
