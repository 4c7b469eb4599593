import { type Call, type CallError, type ErrorReason, type Settle, settleable } from './call.js';
import type { SearchAnswer } from './search-answer.js';

/**
 * The client call interface of contract 4.4, free of DOM globals: the network functions come in
 * through `Transport` (the browser's by default), so the same code runs in a page, in the
 * classic-script bundle (global.ts) and under Node in the tests. Backend paths are
 * `{endpoint}/search`, `{endpoint}/di` and `{endpoint}/cl` (docs/client.md).
 */
export interface Goods {
  code: string;
  name: string;
}

export interface SearchParams {
  /** Key of the search instance (contract 4.4). */
  instanceKey: string;
  queryText: string;
  /** ko, en or ja: which name to show; by default the query's script decides. */
  language?: string;
  /** At most this many products (default 20, at most 100). */
  limit?: number;
}

export interface LogParams {
  instance: { key: string };
  /** DI: every displayed product; CL: the one clicked. */
  goods: Goods[];
  /** The searchProducts answer's requestId; without it nothing is sent. */
  requestId?: string | null;
}

export interface LogAnswer {
  type: 'DI' | 'CL';
  requestId: string;
  /** How it left: queued by navigator.sendBeacon, or a keepalive fetch the backend answered. */
  via: 'beacon' | 'fetch';
}

interface ResponseLike {
  ok: boolean;
  status: number;
  text(): Promise<string>;
}

interface FetchInit {
  method: string;
  headers: Record<string, string>;
  body: string;
  keepalive?: boolean;
  signal?: unknown;
  mode?: 'cors';
  credentials?: 'omit';
}

export type FetchLike = (url: string, init: FetchInit) => Promise<ResponseLike>;

export interface Transport {
  fetch?: FetchLike;
  /** `navigator.sendBeacon`, bound; absent where the browser has none. */
  sendBeacon?: (url: string, data: string) => boolean;
}

export interface ClientOptions {
  /** Base URL of the search backend, e.g. https://search.example.com/client. */
  endpoint?: string;
  /** Time-out of one call in milliseconds (default 5000). */
  timeoutMs?: number;
}

export interface GenserClient {
  configure(options: ClientOptions): GenserClient;
  call(name: 'searchProducts', params: SearchParams): Call<SearchAnswer>;
  call(name: 'DI' | 'CL', params: LogParams): Call<LogAnswer>;
  call(name: string, params: unknown): Call<unknown>;
}

export const DEFAULT_TIMEOUT_MS = 5000;

interface Ctl {
  abort(): void;
  signal: unknown;
}

function browserTransport(): Transport {
  const g = globalThis as unknown as {
    fetch?: FetchLike;
    navigator?: { sendBeacon?: (url: string, data: string) => boolean };
  };
  const nav = g.navigator;
  return {
    fetch: typeof g.fetch === 'function' ? g.fetch.bind(globalThis) : undefined,
    sendBeacon: nav && typeof nav.sendBeacon === 'function' ? nav.sendBeacon.bind(nav) : undefined,
  };
}

const isText = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

function fail(call: string, reason: ErrorReason, message: string, status?: number): CallError {
  return status === undefined ? { call, reason, message } : { call, reason, message, status };
}

/** The problem's detail (or title) of an error answer, when it is JSON and has one. */
function detailOf(text: string): string {
  try {
    const body = JSON.parse(text) as { detail?: unknown; title?: unknown };
    if (isText(body.detail)) return body.detail;
    if (isText(body.title)) return body.title;
  } catch {
    // not JSON: the status alone says it
  }
  return '';
}

function checkLog(name: string, p: LogParams): string | undefined {
  if (!p || typeof p !== 'object') return 'params must be an object';
  if (!p.instance || !isText(p.instance.key)) return 'instance.key must be a non-empty string';
  if (!Array.isArray(p.goods) || p.goods.length === 0)
    return 'goods must be a non-empty array of {code, name}';
  for (const g of p.goods) if (!g || !isText(g.code)) return 'every goods item needs a code';
  if (name === 'CL' && p.goods.length !== 1) return 'CL takes the one clicked item in goods';
  return undefined;
}

/** Where the calls go, and how long an answer may take. */
interface Settings {
  endpoint: string;
  timeoutMs: number;
}

/** POST with a time-out; resolves to the answer's text, or rejects with a CallError. */
function post(
  transport: Transport,
  settings: Settings,
  call: string,
  path: string,
  body: string,
  contentType: string,
  keepalive: boolean,
) {
  return new Promise<string>((resolve, reject) => {
    const f = transport.fetch;
    if (!f) {
      reject(fail(call, 'network', 'no fetch in this browser'));
      return;
    }
    const Abort = (globalThis as unknown as { AbortController?: new () => Ctl }).AbortController;
    const ctl = Abort ? new Abort() : undefined;
    const timer = setTimeout(() => {
      reject(fail(call, 'timeout', `no answer within ${settings.timeoutMs} ms`));
      if (ctl) ctl.abort();
    }, settings.timeoutMs);
    // Inside a promise, so a fetch that throws at once (a malformed URL) is a network error too.
    Promise.resolve()
      .then(() =>
        f(settings.endpoint + path, {
          method: 'POST',
          headers: { 'content-type': contentType },
          body,
          keepalive,
          signal: ctl ? ctl.signal : undefined,
          mode: 'cors',
          credentials: 'omit',
        }),
      )
      .then((res) =>
        res.text().then((text) => {
          const detail = detailOf(text);
          if (res.ok) resolve(text);
          else reject(fail(call, 'http', `HTTP ${res.status}${detail ? `: ${detail}` : ''}`, res.status));
        }),
      )
      .catch((err: { message?: string }) =>
        reject(fail(call, 'network', `the backend did not answer: ${err?.message || err}`)),
      )
      .then(() => clearTimeout(timer));
  });
}

export function createClient(
  options: ClientOptions = {},
  transport: Transport = browserTransport(),
): GenserClient {
  const settings: Settings = { endpoint: '', timeoutMs: DEFAULT_TIMEOUT_MS };

  function configure(o: ClientOptions): GenserClient {
    if (o && typeof o.endpoint === 'string') settings.endpoint = o.endpoint.replace(/\/+$/, '');
    if (o && typeof o.timeoutMs === 'number' && o.timeoutMs > 0) settings.timeoutMs = o.timeoutMs;
    return client;
  }

  function search(params: SearchParams, done: Settle<SearchAnswer>): void {
    const call = 'searchProducts';
    const problem = !isText(params?.instanceKey)
      ? 'instanceKey must be a non-empty string'
      : typeof params.queryText !== 'string'
        ? 'queryText must be a string'
        : undefined;
    if (problem) {
      done.reject(fail(call, 'invalid', problem));
      return;
    }
    const body = JSON.stringify({
      instanceKey: params.instanceKey,
      queryText: params.queryText,
      language: params.language,
      limit: params.limit,
    });
    post(transport, settings, call, '/search', body, 'application/json', false).then((text) => {
      let res: SearchAnswer | undefined;
      try {
        res = JSON.parse(text) as SearchAnswer;
      } catch {
        // reported below
      }
      if (res?.type === 'SEARCH' && isText(res.requestId) && Array.isArray(res.products)) done.resolve(res);
      else
        done.reject(fail(call, 'bad-answer', 'the backend answered something that is not a search answer'));
    }, done.reject);
  }

  function log(name: 'DI' | 'CL', params: LogParams, done: Settle<LogAnswer>): void {
    const problem = checkLog(name, params);
    const requestId = params?.requestId;
    if (problem) done.reject(fail(name, 'invalid', problem));
    // Contract 4.4: no requestId (no search happened), no log.
    else if (!isText(requestId))
      done.reject(fail(name, 'no-request-id', 'no requestId from a search: nothing was sent'));
    else send(name, params, requestId, done);
  }

  function send(name: 'DI' | 'CL', params: LogParams, requestId: string, done: Settle<LogAnswer>): void {
    const body = JSON.stringify({
      name,
      instance: { key: params.instance.key },
      goods: params.goods.map((g) => ({ code: g.code, name: g.name })),
      requestId,
    });
    const url = settings.endpoint + (name === 'DI' ? '/di' : '/cl');
    // A beacon survives the page being left (a click that navigates); a string body is sent as
    // text/plain, which needs no CORS preflight.
    if (transport.sendBeacon?.(url, body)) {
      done.resolve({ type: name, requestId, via: 'beacon' });
      return;
    }
    post(
      transport,
      settings,
      name,
      name === 'DI' ? '/di' : '/cl',
      body,
      'text/plain;charset=UTF-8',
      true,
    ).then(() => done.resolve({ type: name, requestId, via: 'fetch' }), done.reject);
  }

  function call(name: string, params: unknown): Call<never> {
    const done = settleable<never>();
    if (!settings.endpoint)
      done.reject(
        fail(
          name,
          'config',
          'no endpoint: add data-endpoint to the script tag or call genser.configure({endpoint})',
        ),
      );
    else if (name === 'searchProducts') search(params as SearchParams, done);
    else if (name === 'DI' || name === 'CL') log(name, params as LogParams, done);
    else done.reject(fail(String(name), 'invalid', `unknown call "${name}": searchProducts, DI or CL`));
    return done.call;
  }

  const client: GenserClient = { configure, call: call as GenserClient['call'] };
  configure(options);
  return client;
}
