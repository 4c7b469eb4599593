import type { SearchAnswer } from '../client/search-answer.js';
import { readBounded } from '../http/answer-bound.js';
import { dispatcherFor, type NetworkSettings } from '../http/network.js';
import { describeTransportError } from '../http/transport-error.js';
import { ExitCode, ExitError, UsageError } from '../shared/errors.js';
import { isObject } from '../shared/is-object.js';
import { printable } from '../shared/printable.js';

/**
 * `genser search "query"`: what a search backend (the sandbox, or a URL) answers to
 * searchProducts (contract 4.4), so an integrator can check that an upload landed. It calls the
 * same `{endpoint}/search` as the browser client (docs/client.md). Failures are ExitErrors with
 * the exit codes of docs/architecture.md section 5; the instance key never appears in a message.
 */
export interface SearchBackendSettings {
  /** The backend's endpoint, as in the script tag's data-endpoint; a bare origin means `{origin}/client`. */
  url: string;
  instanceKey: string;
  query: string;
  timeoutMs: number;
  language?: 'ko' | 'en' | 'ja';
  limit?: number;
  /** Proxy and CAs (docs/networks.md); absent: straight to the host with Node's CAs. */
  network?: NetworkSettings;
}

/** `{endpoint}/search`; a URL without a path is taken as the sandbox's origin (mounted at /client). */
export function searchUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UsageError(`the search URL "${raw}" is not a URL`, 'for example http://127.0.0.1:8080/client');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`the search URL must be http or https; got ${url.protocol}`);
  const base = url.pathname === '/' ? '/client' : url.pathname.replace(/\/+$/, '');
  return new URL(`${base}/search`, url);
}

function detail(text: string): string {
  try {
    const body = JSON.parse(text) as unknown;
    if (isObject(body) && typeof body.detail === 'string') return `: ${body.detail}`;
  } catch {
    // not JSON: the status says enough
  }
  return '';
}

function isAnswer(body: unknown): body is SearchAnswer {
  return (
    isObject(body) &&
    body.type === 'SEARCH' &&
    typeof body.requestId === 'string' &&
    Array.isArray(body.products) &&
    body.products.every((p) => isObject(p) && typeof p.code === 'string' && typeof p.name === 'string')
  );
}

export async function searchBackend(s: SearchBackendSettings): Promise<SearchAnswer> {
  const url = searchUrl(s.url);
  if (s.instanceKey.trim() === '')
    throw new UsageError('no instance key', 'set GENSER_INSTANCE_KEY (the sandbox prints its key at start)');
  let status: number;
  let text: string;
  const { dispatcher } = dispatcherFor(url, s.network ?? { env: {} }, {
    connections: 1,
    timeoutMs: s.timeoutMs,
  });
  try {
    const res = await dispatcher.request({
      origin: url.origin,
      path: url.pathname,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        instanceKey: s.instanceKey,
        queryText: s.query,
        language: s.language,
        limit: s.limit,
      }),
      signal: AbortSignal.timeout(s.timeoutMs),
    });
    status = res.statusCode;
    text = await readBounded(res, url.href);
  } catch (err) {
    const failure = describeTransportError(err);
    if (failure.config) throw new UsageError(failure.config.message, failure.config.hint);
    const timedOut = failure.status === 'timeout';
    throw new ExitError(
      ExitCode.unavailable,
      timedOut ? `${url.origin}: no answer within ${s.timeoutMs} ms` : `${url.origin}: ${failure.message}`,
      timedOut ? 'try a longer --timeout' : 'is the backend (genser sandbox) running at that URL?',
    );
  } finally {
    await dispatcher.close();
  }
  if (status === 401)
    throw new ExitError(ExitCode.auth, `${url.href}: 401${detail(text)}`, 'check GENSER_INSTANCE_KEY');
  if (status >= 500 || status === 429)
    throw new ExitError(ExitCode.unavailable, `${url.href}: ${status}${detail(text)}`, 'try again later');
  if (status >= 400)
    throw new ExitError(
      ExitCode.usage,
      `${url.href}: ${status}${detail(text)}`,
      status === 404
        ? 'the URL is the endpoint of data-endpoint, e.g. http://127.0.0.1:8080/client'
        : undefined,
    );
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!isAnswer(body))
    throw new ExitError(
      ExitCode.unavailable,
      `${url.href}: answered ${status} with something that is not a search answer (type SEARCH, requestId, products)`,
    );
  return body;
}

/**
 * The human form: one line per product, the requestId last (stdout gets the data). Every value
 * is the backend's and goes through printable(): a name cannot clear the screen or start a line.
 */
export function formatSearchAnswer(answer: SearchAnswer): string {
  const lines = answer.products.map((p, i) => {
    const price =
      typeof p.price === 'number'
        ? `  ${p.price}${typeof p.currency === 'string' ? ` ${p.currency}` : ''}`
        : '';
    return `${String(i + 1).padStart(3)}. ${p.code}  ${p.name}${price}`;
  });
  const total = answer.total ?? answer.products.length;
  const head = `${total} product${total === 1 ? '' : 's'} for "${answer.queryText}"${total > answer.products.length ? ` (first ${answer.products.length})` : ''}`;
  return [head, ...lines, `requestId ${answer.requestId}`].map(printable).join('\n') + '\n';
}
