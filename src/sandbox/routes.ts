import type { IncomingMessage } from 'node:http';
import { type AnswerStyle, errorReply, type Reply } from './reply.js';

/**
 * The sandbox's routes as one table (docs/sandbox.md, "Endpoints"): a path and the handler of
 * each method it takes. 404 (no such path), 405 and its `Allow` header are derived from the table
 * alone, the same way on every path; a handler never checks its own method.
 */
export type Method = 'GET' | 'POST' | 'OPTIONS';

/** `path` is the request's path without trailing slashes. */
export type Handler = (req: IncomingMessage, url: URL, path: string) => Reply | Promise<Reply>;

/**
 * Who a route is for: `admin` (the sandbox's own API: same-origin only), `client` (contract 4.4:
 * pages on any origin, CORS), `ingest` (the contract's keyed endpoints), `info` (the index).
 */
export type RouteGroup = 'admin' | 'client' | 'ingest' | 'info';

export interface Route {
  /** An exact path; with `prefix`, every path below it (`/_sandbox/products/` + SKU). */
  path: string;
  prefix?: boolean;
  group: RouteGroup;
  /** The style of this path's error answers (legacy paths answer the legacy structure). */
  style: AnswerStyle;
  methods: Partial<Record<Method, Handler>>;
}

/** `/a/b/` and `/a/b` are one path; `/` stays itself. */
export function normalPath(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

/** A GET route answers HEAD too (Node drops the body). */
export function allowOf(route: Route): string {
  const methods = Object.keys(route.methods) as Method[];
  return (methods.includes('GET') ? [...methods, 'HEAD'] : methods).join(', ');
}

export class RouteTable {
  private readonly exact = new Map<string, Route>();
  private readonly prefixes: Route[] = [];

  constructor(routes: readonly Route[]) {
    for (const r of routes) {
      if (r.prefix) this.prefixes.push(r);
      else if (this.exact.has(r.path)) throw new Error(`two sandbox routes for ${r.path}`);
      else this.exact.set(r.path, r);
    }
    // The longest prefix wins.
    this.prefixes.sort((a, b) => b.path.length - a.path.length);
  }

  /**
   * An exact path first, then the same without trailing slashes (not for the contract's own
   * paths, which the service takes exactly as written), then the longest prefix.
   */
  find(path: string): Route | undefined {
    const exact = this.exact.get(path);
    if (exact) return exact;
    const normal = normalPath(path);
    const loose = this.exact.get(normal);
    if (loose && loose.group !== 'ingest') return loose;
    return this.prefixes.find((r) => normal.startsWith(r.path));
  }

  /** The route's handler for the request's method, or the 404 / 405 the table implies. */
  resolve(
    method: string,
    rawPath: string,
  ): { route: Route; handler: Handler } | { route?: Route; reply: Reply } {
    const route = this.find(rawPath);
    const path = normalPath(rawPath);
    if (!route) return { reply: errorReply('problem', 404, 'not-found', `no endpoint ${path}`) };
    const handler = route.methods[(method === 'HEAD' ? 'GET' : method) as Method];
    if (handler) return { route, handler };
    const allow = allowOf(route);
    const reply = errorReply(route.style, 405, 'method-not-allowed', `${path} takes ${allow}`);
    return { route, reply: { ...reply, headers: { allow } } };
  }
}
