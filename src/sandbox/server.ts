import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { EVENT_KINDS } from '../events/kinds.js';
import { errorMessage } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { type AdminContext, adminRoutes } from './admin.js';
import {
  CLIENT_PREFIX,
  type ClientApiContext,
  CORS,
  clientRoutes,
  DEMO_PATH,
  SCRIPT_PATH,
} from './client-api.js';
import { adminRefusal, hostCheck, wrongHost } from './guards.js';
import { type Endpoint, type IngestSettings, ingestHandler } from './ingest-route.js';
import type { LegacyKind } from './products.js';
import { errorReply, json, type Reply } from './reply.js';
import { normalPath, type Route, RouteTable } from './routes.js';

/**
 * The HTTP side of the sandbox: one route table (src/sandbox/routes.ts) over the contract's
 * endpoints, the client's and the admin's, the Host and Origin guards (guards.ts), and one log
 * line per request. Nothing a client sends can crash it: every handler's failure becomes a 500.
 */
export interface ServerSettings extends IngestSettings {
  /** The address it listens on (`--host`): the Host names it answers to follow from it. */
  host: string;
  legacyPaths: Record<LegacyKind, string>;
  log: Logger;
  quiet: boolean;
  admin: AdminContext;
  /** The client call interface of contract 4.4: script, search backend, DI/CL, demo page. */
  client: ClientApiContext;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  onRequest(status: number): void;
}

const ignore = () => {};

/** The contract's keyed endpoints, each POST only. */
function ingestRoutes(s: ServerSettings): Route[] {
  const handle = ingestHandler(s);
  const route = (path: string, endpoint: Endpoint): Route => ({
    path,
    group: 'ingest',
    style: endpoint.kind === 'legacy' ? 'legacy' : 'problem',
    methods: { POST: (req, _url, p) => handle(req, p, endpoint) },
  });
  return [
    ...EVENT_KINDS.map((event) => route(event.path, { kind: 'event', event })),
    route('/collectors/products', { kind: 'standard' }),
    ...(Object.entries(s.legacyPaths) as [LegacyKind, string][]).map(([legacy, path]) =>
      route(path, { kind: 'legacy', legacy }),
    ),
  ];
}

const INDEX: Route = {
  path: '/',
  group: 'info',
  style: 'problem',
  methods: {
    GET: () =>
      json(200, {
        service: 'genser sandbox',
        admin: '/_sandbox/stats',
        demo: DEMO_PATH,
        script: SCRIPT_PATH,
      }),
  },
};

export function routeTable(s: ServerSettings): RouteTable {
  return new RouteTable([INDEX, ...ingestRoutes(s), ...adminRoutes(s.admin), ...clientRoutes(s.client)]);
}

/** One request to its reply: Host, the table's 404/405, the admin guard, the handler, CORS. */
function router(s: ServerSettings): (req: IncomingMessage, url: URL) => Promise<Reply> {
  const table = routeTable(s);
  const knownHost = hostCheck(s.host);
  return async (req, url) => {
    const host = req.headers.host;
    if (!knownHost(host)) return wrongHost(host ?? '');
    const method = req.method ?? 'GET';
    const found = table.resolve(method, url.pathname);
    const path = normalPath(url.pathname);
    const refused = found.route?.group === 'admin' ? adminRefusal(req, method) : undefined;
    const reply = refused ?? ('handler' in found ? await found.handler(req, url, path) : found.reply);
    const cors = found.route ? found.route.group === 'client' : path.startsWith(`${CLIENT_PREFIX}/`);
    return cors ? { ...reply, headers: { ...CORS, ...reply.headers } } : reply;
  };
}

function write(req: IncomingMessage, res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string> = { ...reply.headers };
  if (reply.contentType) headers['content-type'] = `${reply.contentType}; charset=utf-8`;
  if (reply.close) headers.connection = 'close';
  res.writeHead(reply.status, headers);
  res.end(reply.body);
  if (reply.close) {
    // Discard (not buffer) what the client still sends so it can read the answer, then hang up.
    req.resume();
    const timer = setTimeout(() => req.socket.destroy(), 2000);
    timer.unref();
    req.socket.once('close', () => clearTimeout(timer));
  }
}

function requestHandler(s: ServerSettings) {
  const route = router(s);
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    // A client that vanishes mid-request must not become an unhandled 'error' event.
    req.on('error', ignore);
    res.on('error', ignore);
    let path = req.url ?? '/';
    let reply: Reply;
    try {
      const url = new URL(req.url ?? '/', 'http://sandbox');
      path = url.pathname;
      reply = await route(req, url);
    } catch (err) {
      s.log.error(`sandbox: ${req.method} ${path}: ${errorMessage(err)}`);
      reply = errorReply('problem', 500, 'internal', 'the sandbox failed on this request');
    }
    const ms = Math.round(performance.now() - started);
    if (reply.reset) {
      req.socket.destroy();
      s.onRequest(0);
      if (!s.quiet) s.log.info(`${req.method} ${path} reset ${ms}ms`);
      return;
    }
    try {
      write(req, res, reply);
    } catch (err) {
      s.log.error(`sandbox: cannot answer ${req.method} ${path}: ${errorMessage(err)}`);
      req.socket.destroy();
    }
    s.onRequest(reply.status);
    if (!s.quiet)
      s.log.info(
        `${req.method} ${path.slice(0, 200)} ${reply.status} ${ms}ms${reply.items !== undefined ? ` items=${reply.items}` : ''}`,
      );
  };
}

/** The sandbox's HTTP server; `idle()` settles when no request is being handled. */
export type SandboxServer = Server & { idle(): Promise<void> };

export function createSandboxServer(s: ServerSettings): SandboxServer {
  const handle = requestHandler(s);
  // Requests still being handled (a body on an ingest worker): the store is closed after them,
  // also after their sockets were cut, never under them ("statement has been finalized").
  const handling = new Set<Promise<void>>();
  const server = createServer(
    {
      headersTimeout: s.headersTimeoutMs,
      requestTimeout: s.requestTimeoutMs,
      keepAliveTimeout: 5000,
      connectionsCheckingInterval: Math.min(1000, s.headersTimeoutMs),
    },
    (req, res) => {
      const done = handle(req, res).finally(() => handling.delete(done));
      handling.add(done);
    },
  );
  // Malformed requests and slow clients: answer if the socket still can, never throw.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    const status = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? '408 Request Timeout' : '400 Bad Request';
    if (err.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
    s.onRequest(Number.parseInt(status, 10));
  });
  return Object.assign(server, {
    idle: async (): Promise<void> => {
      while (handling.size > 0) await Promise.allSettled([...handling]);
    },
  });
}
