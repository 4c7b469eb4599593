import { errorReply, json, type Reply } from './reply.js';
import type { SandboxStore } from './store.js';

/**
 * The sandbox's own API, without keys (docs/architecture.md section 8): look at what was received, run the
 * daily batch now, read the outbox, start over.
 */
export interface AdminContext {
  store: SandboxStore;
  stats(): unknown;
  runBatch(): { applied: number };
  reset(): void;
}

const PRODUCT_FORMATS = ['standard', 'legacy', 'legacy-content', 'legacy-filter'];

function intParam(value: string | null, fallback: number, max: number): number | undefined {
  if (value === null || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) return undefined;
  return Math.min(n, max);
}

function badQuery(detail: string): Reply {
  return errorReply('problem', 400, 'bad-query', detail);
}

export function handleAdmin(method: string, url: URL, ctx: AdminContext): Reply {
  const path = url.pathname.replace(/\/+$/, '');
  const q = url.searchParams;
  if (method === 'GET' && (path === '/_sandbox/stats' || path === '/_sandbox')) return json(200, ctx.stats());
  if (method === 'GET' && path === '/_sandbox/health') return json(200, { ok: true });
  if (method === 'GET' && path === '/_sandbox/products') {
    const status = q.get('status') ?? undefined;
    if (status !== undefined && status !== 'pending' && status !== 'applied')
      return badQuery('status must be pending or applied');
    const format = q.get('format') ?? undefined;
    if (format !== undefined && !PRODUCT_FORMATS.includes(format))
      return badQuery(`format must be one of ${PRODUCT_FORMATS.join(', ')}`);
    const limit = intParam(q.get('limit'), 100, 10_000);
    const offset = intParam(q.get('offset'), 0, Number.MAX_SAFE_INTEGER);
    if (limit === undefined || offset === undefined)
      return badQuery('limit and offset must be whole numbers');
    return json(200, ctx.store.listProducts({ status, format }, limit, offset));
  }
  if (method === 'GET' && path.startsWith('/_sandbox/products/')) {
    let sku: string;
    try {
      sku = decodeURIComponent(path.slice('/_sandbox/products/'.length));
    } catch {
      return badQuery('the SKU in the path is not valid percent-encoding');
    }
    const format = q.get('format') ?? undefined;
    const product = ctx.store.getProduct(sku, format);
    if (!product) return errorReply('problem', 404, 'not-found', `no product with SKU "${sku}" was received`);
    return json(200, product);
  }
  if (method === 'GET' && path === '/_sandbox/events') {
    const limit = intParam(q.get('limit'), 100, 10_000);
    if (limit === undefined) return badQuery('limit must be a whole number');
    return json(200, ctx.store.listEvents(q.get('type') ?? undefined, limit));
  }
  if (method === 'POST' && path === '/_sandbox/batch') return json(200, ctx.runBatch());
  if (method === 'GET' && path === '/_sandbox/outbox') return json(200, { items: ctx.store.outbox() });
  if (method === 'POST' && path === '/_sandbox/reset') {
    ctx.reset();
    return json(200, { reset: true });
  }
  return errorReply('problem', 404, 'not-found', `no sandbox admin endpoint ${method} ${path}`);
}
