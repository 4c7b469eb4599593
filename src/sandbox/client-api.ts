import { createHash, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SearchAnswer } from '../client/search-answer.js';
import { isObject } from '../shared/is-object.js';
import { declaredTooLarge, encodingProblem, readBody } from './body.js';
import type { Faults } from './faults.js';
import { errorReply, json, type Reply } from './reply.js';
import type { Route } from './routes.js';
import type { SearchIndex } from './search-index.js';
import type { SandboxStore } from './store.js';

/**
 * The client side of contract 4.4, played by the sandbox (docs/client.md):
 *   GET  /genser.js        the browser client (dist/client/genser.js)
 *   POST /client/search    searchProducts: {instanceKey, queryText, language?, limit?}
 *   POST /client/di        DI: {instance: {key}, goods, requestId}
 *   POST /client/cl        CL: the same, with the one clicked item
 *   GET  /_sandbox/demo    a search page wired with the client (dist/client/demo.html)
 * Pages on any origin may call these: every answer carries CORS headers, and OPTIONS answers
 * the preflight. DI and CL arrive from navigator.sendBeacon as text/plain, so that is accepted.
 */
export interface ClientApiContext {
  store: SandboxStore;
  instanceKey: string;
  faults: Faults;
  now: () => Date;
  /** The search index over the applied products (rebuilt after each batch). */
  index(): SearchIndex;
  /** The sandbox's own URL, for the demo page when the request has no usable Host. */
  baseUrl(): string;
  files: { script: string; demo: string };
}

export const CLIENT_PREFIX = '/client';
export const SCRIPT_PATH = '/genser.js';
export const DEMO_PATH = '/_sandbox/demo';
/** The placeholders of the demo page (the docs' example), replaced when the sandbox serves it. */
export const DEMO_ORIGIN = 'http://127.0.0.1:8080';
export const DEMO_INSTANCE_KEY = 'YOUR_INSTANCE_KEY';

const MAX_CLIENT_BODY = 64 * 1024;
const MAX_QUERY_CHARS = 1000;
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
const LANGUAGES = ['ko', 'en', 'ja'];

export const CORS = { 'access-control-allow-origin': '*' };
const PREFLIGHT = {
  ...CORS,
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '600',
};

const digest = (s: string) => createHash('sha256').update(s).digest();

function bad(status: number, slug: string, detail: string, pointer = ''): Reply {
  return errorReply('problem', status, slug, detail, [{ index: null, sku: null, pointer, message: detail }]);
}

const fileCache = new Map<string, string>();

async function builtFile(path: string): Promise<string | undefined> {
  const cached = fileCache.get(path);
  if (cached !== undefined) return cached;
  try {
    const text = await readFile(path, 'utf8');
    fileCache.set(path, text);
    return text;
  } catch {
    return undefined;
  }
}

function notBuilt(what: string): Reply {
  return errorReply('problem', 503, 'client-not-built', `${what} is not built: run npm run build`);
}

/** The origin the browser used to reach us (the Host header), when it looks like one. */
function originOf(req: IncomingMessage, ctx: ClientApiContext): string {
  const host = req.headers.host;
  return host && /^[A-Za-z0-9.\-:[\]]+$/.test(host) ? `http://${host}` : ctx.baseUrl();
}

async function serveFile(req: IncomingMessage, path: string, ctx: ClientApiContext): Promise<Reply> {
  if (path === SCRIPT_PATH) {
    const script = await builtFile(ctx.files.script);
    if (script === undefined) return notBuilt('the client script dist/client/genser.js');
    return {
      status: 200,
      contentType: 'text/javascript',
      body: script,
      headers: { 'cache-control': 'no-cache' },
    };
  }
  const page = await builtFile(ctx.files.demo);
  if (page === undefined) return notBuilt('the demo page dist/client/demo.html');
  const body = page
    .replaceAll(DEMO_ORIGIN, originOf(req, ctx))
    .replaceAll(DEMO_INSTANCE_KEY, jsStringContent(ctx.instanceKey));
  return { status: 200, contentType: 'text/html', body, headers: { 'cache-control': 'no-cache' } };
}

/** A key as the inside of a quoted JS string in an HTML script: no quote, backslash or tag can break out. */
export function jsStringContent(text: string): string {
  return text.replace(
    /[\\'"<>&\u0000-\u001f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

type Parsed = { body: Record<string, unknown>; text: string } | { reply: Reply };

async function readJsonObject(req: IncomingMessage): Promise<Parsed> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  // sendBeacon sends a string as text/plain; a page's fetch may use either.
  if (type !== 'application/json' && type !== 'text/plain')
    return {
      reply: bad(415, 'unsupported-media-type', 'Content-Type must be application/json or text/plain'),
    };
  const tooLarge = () => ({
    reply: { ...bad(413, 'too-large', `the body is larger than ${MAX_CLIENT_BODY} bytes`), close: true },
  });
  if (declaredTooLarge(req, MAX_CLIENT_BODY)) return tooLarge();
  const read = await readBody(req, MAX_CLIENT_BODY);
  if (read.kind === 'too-large') return tooLarge();
  if (read.kind === 'aborted') return { reply: { status: 0, reset: true } };
  const unreadable = encodingProblem(read);
  if (unreadable) return { reply: bad(unreadable.status, unreadable.code, unreadable.detail) };
  if (read.kind !== 'ok') return { reply: { status: 0, reset: true } };
  const text = read.body.toString('utf8').replace(/^\uFEFF/, '');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    return { reply: bad(400, 'malformed-json', `the body is not JSON: ${(err as Error).message}`) };
  }
  if (!isObject(body)) return { reply: bad(400, 'invalid-body', 'the body must be a JSON object') };
  return { body, text };
}

function checkInstanceKey(given: unknown, ctx: ClientApiContext, pointer: string): Reply | undefined {
  if (typeof given !== 'string' || given === '')
    return bad(401, 'unauthorized', `missing ${pointer.slice(1).replace('/', '.')}`, pointer);
  // Never echo the key, right or wrong.
  if (!timingSafeEqual(digest(given), digest(ctx.instanceKey)))
    return bad(
      401,
      'unauthorized',
      'wrong instance key: use the one the sandbox printed at start (GENSER_INSTANCE_KEY)',
      pointer,
    );
  return undefined;
}

function search(body: Record<string, unknown>, ctx: ClientApiContext): Reply {
  const denied = checkInstanceKey(body.instanceKey, ctx, '/instanceKey');
  if (denied) return denied;
  const { queryText, language, limit } = body;
  if (typeof queryText !== 'string')
    return bad(400, 'invalid-body', 'queryText must be a string', '/queryText');
  if (queryText.length > MAX_QUERY_CHARS)
    return bad(400, 'invalid-body', `queryText is longer than ${MAX_QUERY_CHARS} characters`, '/queryText');
  if (language !== undefined && language !== null && !LANGUAGES.includes(String(language)))
    return bad(400, 'invalid-body', 'language must be ko, en or ja', '/language');
  if (limit !== undefined && limit !== null && !(Number.isInteger(limit) && (limit as number) >= 1))
    return bad(400, 'invalid-body', 'limit must be a whole number from 1', '/limit');
  const { total, hits } = ctx.index().search(queryText, {
    language: (language as string | null) ?? undefined,
    limit: Math.min((limit as number | null) ?? DEFAULT_LIMIT, MAX_LIMIT),
    legacyStock: (codes) => ctx.store.legacyStock(codes),
  });
  const requestId = randomUUID();
  ctx.store.insertSearch(
    requestId,
    queryText,
    hits.map((h) => h.code),
    ctx.now().getTime(),
  );
  const answer: SearchAnswer = { type: 'SEARCH', requestId, queryText, total, products: hits };
  return json(200, answer, hits.length);
}

function log(kind: 'DI' | 'CL', body: Record<string, unknown>, text: string, ctx: ClientApiContext): Reply {
  if (body.name !== undefined && body.name !== kind)
    return bad(
      400,
      'wrong-call',
      `a ${String(body.name).slice(0, 20)} call does not belong on ${CLIENT_PREFIX}/${kind.toLowerCase()}`,
      '/name',
    );
  const denied = checkInstanceKey(
    isObject(body.instance) ? body.instance.key : undefined,
    ctx,
    '/instance/key',
  );
  if (denied) return denied;
  const goods = body.goods;
  if (!Array.isArray(goods) || goods.length === 0)
    return bad(400, 'invalid-body', 'goods must be a non-empty array of {code, name}', '/goods');
  const badItem = goods.findIndex((g) => !isObject(g) || typeof g.code !== 'string' || g.code === '');
  if (badItem !== -1)
    return bad(400, 'invalid-body', 'every goods item needs a code (a string)', `/goods/${badItem}/code`);
  if (kind === 'CL' && goods.length !== 1)
    return bad(400, 'invalid-body', `CL takes the one clicked item; got ${goods.length}`, '/goods');
  const requestId = body.requestId;
  if (typeof requestId !== 'string' || requestId === '')
    return bad(
      400,
      'invalid-body',
      'requestId (from the search answer) must be a non-empty string',
      '/requestId',
    );
  // One with a requestId no search gave is still stored, and marked so (requestKnown: false).
  const known = ctx.store.hasSearch(requestId);
  ctx.store.insertEvent(kind, requestId, null, text, ctx.now().getTime(), known);
  return { status: 204, items: goods.length };
}

async function call(req: IncomingMessage, route: string, ctx: ClientApiContext): Promise<Reply> {
  const fault = ctx.faults.decide();
  if (fault.kind === 'rate-limited') {
    const r = bad(429, 'rate-limited', 'too many requests per second (--rate-limit)');
    return { ...r, headers: { 'retry-after': String(fault.retryAfterSeconds) } };
  }
  if (fault.kind === 'reset') return { status: 0, reset: true };
  if (fault.kind === 'fail')
    return bad(fault.status, 'unavailable', 'service temporarily unavailable (--fail-rate)');
  const parsed = await readJsonObject(req);
  if ('reply' in parsed) return parsed.reply;
  if (fault.latencyMs > 0) await sleep(fault.latencyMs);
  const reply =
    route === 'search'
      ? search(parsed.body, ctx)
      : log(route === 'di' ? 'DI' : 'CL', parsed.body, parsed.text, ctx);
  if (fault.lost && reply.status < 400)
    return {
      ...bad(500, 'lost-response', 'the request was processed but its answer was lost (--lost-rate)'),
      items: reply.items,
    };
  return reply;
}

/**
 * The client routes; the server adds CORS to every answer on them (errors and 405 included),
 * so a page on another origin can read it.
 */
export function clientRoutes(ctx: ClientApiContext): Route[] {
  const client = (path: string, methods: Route['methods']): Route => ({
    path,
    group: 'client',
    style: 'problem',
    methods,
  });
  const calls = (name: string): Route =>
    client(`${CLIENT_PREFIX}/${name}`, {
      POST: (req) => call(req, name, ctx),
      OPTIONS: () => ({ status: 204, headers: PREFLIGHT }),
    });
  return [
    client(SCRIPT_PATH, { GET: (req, _url, path) => serveFile(req, path, ctx) }),
    client(DEMO_PATH, { GET: (req, _url, path) => serveFile(req, path, ctx) }),
    calls('search'),
    calls('di'),
    calls('cl'),
  ];
}
