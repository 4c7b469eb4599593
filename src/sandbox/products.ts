import { checkSchema } from '../schema/bounded.js';
import { getValidator } from '../schema/schemas.js';
import { isObject } from '../shared/is-object.js';
import { checkItems, type ItemsVerdict, itemCappedNote, itemErrors, MAX_LISTED_ERRORS } from './problems.js';
import { type AnswerStyle, errorReply, json, legacyOk, type Reply } from './reply.js';
import type { ProductFormat, SandboxStore } from './store.js';

/**
 * Product ingestion: the standard API (`@graph` of JSON-LD products) and the legacy v0.3 arrays
 * (products, contents, filters). A request is all or nothing: when any item is invalid, nothing
 * is stored and the answer lists every failing item by its index.
 */
export interface Processed {
  reply: Reply;
  /** The writes, run by the caller in one transaction with the idempotency record. */
  commit?: (store: SandboxStore, now: number) => void;
}

/**
 * What an accepted product request stores, as data (it may come from the ingest worker): the
 * body once, each item's (format, sku) pointing at it. See `SandboxStore.upsertProducts`.
 */
export interface ProductsWrite {
  format: ProductFormat;
  itemsKey: string;
  skus: string[];
  inStock: (boolean | null)[] | null;
  /** A standard envelope's `type`, when it is create_product or update_product (mismatches are noted). */
  envelopeType?: 'create_product' | 'update_product';
}

export interface ProductsOutcome {
  reply: Reply;
  write?: ProductsWrite;
}

export type LegacyKind = 'products' | 'contents' | 'filters';

/**
 * A body whose top level repeats `"@graph"`: JSON.parse keeps the last, SQLite (which serves the
 * stored data) the first. Refused rather than stored ambiguously.
 */
function repeatsGraph(text: string): boolean {
  const first = text.indexOf('"@graph"');
  return first !== -1 && text.indexOf('"@graph"', first + 8) !== -1;
}

const LEGACY: Record<LegacyKind, { schema: string; format: ProductFormat; key: string }> = {
  products: { schema: 'legacy-product', format: 'legacy', key: 'code' },
  contents: { schema: 'legacy-content', format: 'legacy-content', key: 'code' },
  filters: { schema: 'legacy-filter', format: 'legacy-filter', key: 'name' },
};

function stringOrNull(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function invalidItems(style: AnswerStyle, verdict: ItemsVerdict, what: string): Reply {
  const bad = verdict.invalid;
  const note = verdict.note ? ` (${verdict.note})` : '';
  const detail =
    bad > 0
      ? `${bad} ${what}${bad === 1 ? ' is' : 's are'} invalid; nothing was stored${note}`
      : `the request body is invalid; nothing was stored${note}`;
  return errorReply(style, 400, 'invalid-body', detail, verdict.errors);
}

/**
 * Why a standard body failed: the envelope's own problems (one product stands in for the list,
 * so its fields are checked), then each product's (checkItems). Linear in the body.
 */
function standardVerdict(body: Record<string, unknown>): ItemsVerdict {
  const graph = body['@graph'];
  const isList = Array.isArray(graph);
  const shell = isList && graph.length > 0 ? { ...body, '@graph': [graph[0]] } : body;
  const check = checkSchema('standard-envelope', shell);
  const envelopeErrors = itemErrors(check.errors, '/@graph', () => null).filter(
    (e) => !isList || e.index === null,
  );
  if (!isList) {
    const verdict: ItemsVerdict = { invalid: 0, errors: envelopeErrors };
    if (check.capped) verdict.note = itemCappedNote(check.capped);
    return verdict;
  }
  const skuOf = (i: number) => (isObject(graph[i]) ? stringOrNull(graph[i].sku) : null);
  const items = checkItems(graph, 'standard-product', '/@graph', skuOf);
  return { ...items, errors: [...envelopeErrors, ...items.errors].slice(0, MAX_LISTED_ERRORS) };
}

/** `text` is the body as received; `body` is it parsed. */
export function processStandard(body: unknown, text: string, appliesAt: string): ProductsOutcome {
  const validate = getValidator('standard-envelope');
  if (!isObject(body)) {
    return {
      reply: errorReply(
        'problem',
        400,
        'invalid-body',
        'the body must be a JSON object with an "@graph" array',
        [{ index: null, sku: null, pointer: '', message: 'must be an object' }],
      ),
    };
  }
  const graph = body['@graph'];
  if (!validate(body)) return { reply: invalidItems('problem', standardVerdict(body), 'product') };
  if (repeatsGraph(text)) {
    return {
      reply: errorReply(
        'problem',
        400,
        'repeated-key',
        'the body repeats "@graph"; send one list of products',
        [{ index: null, sku: null, pointer: '/@graph', message: 'must appear once' }],
      ),
    };
  }
  const products = graph as Record<string, unknown>[];
  const skus = products.map((p) => p.sku as string);
  const write: ProductsWrite = { format: 'standard', itemsKey: '"@graph"', skus, inStock: null };
  if (body.type === 'create_product' || body.type === 'update_product') write.envelopeType = body.type;
  return {
    reply: json(200, { accepted: skus.length, status: 'pending', appliesAt }, skus.length),
    write,
  };
}

export function processLegacy(kind: LegacyKind, body: unknown, appliesAt: string): ProductsOutcome {
  const spec = LEGACY[kind];
  if (Array.isArray(body) && body.length === 0) {
    return {
      reply: errorReply('legacy', 400, 'invalid-body', `the array is empty: no ${kind} to store`, [
        { index: null, sku: null, pointer: '', message: 'must not be empty' },
      ]),
    };
  }
  if (!Array.isArray(body)) {
    return {
      reply: errorReply('legacy', 400, 'invalid-body', `the body must be a JSON array of legacy ${kind}`, [
        { index: null, sku: null, pointer: '', message: 'must be an array' },
      ]),
    };
  }
  const skuOf = (i: number) => (isObject(body[i]) ? stringOrNull(body[i][spec.key]) : null);
  const verdict = checkItems(body, spec.schema, '', skuOf);
  if (verdict.invalid > 0) return { reply: invalidItems('legacy', verdict, kind.replace(/s$/, '')) };
  const skus: string[] = new Array(body.length);
  const inStock: (boolean | null)[] = new Array(body.length);
  let stock = 0;
  for (let i = 0; i < body.length; i++) {
    const obj = body[i] as Record<string, unknown>;
    skus[i] = obj[spec.key] as string;
    inStock[i] = kind === 'products' && typeof obj.isInStock === 'boolean' ? obj.isInStock : null;
    if (inStock[i] !== null) stock++;
  }
  return {
    reply: legacyOk({ received: body.length, stockApplied: stock, appliesAt }, body.length),
    write: { format: spec.format, itemsKey: '', skus, inStock: kind === 'products' ? inStock : null },
  };
}
