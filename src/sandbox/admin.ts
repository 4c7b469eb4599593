import { errorReply, json, type Reply } from './reply.js';
import type { Route } from './routes.js';
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

function listProducts(url: URL, ctx: AdminContext): Reply {
  const q = url.searchParams;
  const status = q.get('status') ?? undefined;
  if (status !== undefined && status !== 'pending' && status !== 'applied')
    return badQuery('status must be pending or applied');
  const format = q.get('format') ?? undefined;
  if (format !== undefined && !PRODUCT_FORMATS.includes(format))
    return badQuery(`format must be one of ${PRODUCT_FORMATS.join(', ')}`);
  const limit = intParam(q.get('limit'), 100, 10_000);
  const offset = intParam(q.get('offset'), 0, Number.MAX_SAFE_INTEGER);
  if (limit === undefined || offset === undefined) return badQuery('limit and offset must be whole numbers');
  return json(200, ctx.store.listProducts({ status, format }, limit, offset));
}

function oneProduct(url: URL, path: string, ctx: AdminContext): Reply {
  let sku: string;
  try {
    sku = decodeURIComponent(path.slice(PRODUCT_PREFIX.length));
  } catch {
    return badQuery('the SKU in the path is not valid percent-encoding');
  }
  const product = ctx.store.getProduct(sku, url.searchParams.get('format') ?? undefined);
  if (!product) return errorReply('problem', 404, 'not-found', `no product with SKU "${sku}" was received`);
  return json(200, product);
}

function listEvents(url: URL, ctx: AdminContext): Reply {
  const limit = intParam(url.searchParams.get('limit'), 100, 10_000);
  if (limit === undefined) return badQuery('limit must be a whole number');
  return json(200, ctx.store.listEvents(url.searchParams.get('type') ?? undefined, limit));
}

const PRODUCT_PREFIX = '/_sandbox/products/';

/** The admin routes (docs/sandbox.md, "Admin"); the server adds the same-origin guard. */
export function adminRoutes(ctx: AdminContext): Route[] {
  const stats = () => json(200, ctx.stats());
  const admin = (path: string, methods: Route['methods'], prefix = false): Route => ({
    path,
    prefix,
    group: 'admin',
    style: 'problem',
    methods,
  });
  return [
    admin('/_sandbox', { GET: stats }),
    admin('/_sandbox/stats', { GET: stats }),
    admin('/_sandbox/health', { GET: () => json(200, { ok: true }) }),
    admin('/_sandbox/products', { GET: (_req, url) => listProducts(url, ctx) }),
    admin(PRODUCT_PREFIX, { GET: (_req, url, path) => oneProduct(url, path, ctx) }, true),
    admin('/_sandbox/events', { GET: (_req, url) => listEvents(url, ctx) }),
    admin('/_sandbox/batch', { POST: () => json(200, ctx.runBatch()) }),
    admin('/_sandbox/outbox', { GET: () => json(200, { items: ctx.store.outbox() }) }),
    admin('/_sandbox/reset', {
      POST: () => {
        ctx.reset();
        return json(200, { reset: true });
      },
    }),
  ];
}
