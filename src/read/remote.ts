import { type Download, download } from '../http/download.js';
import type { NetworkSettings } from '../http/network.js';
import { describeTransportError } from '../http/transport-error.js';
import { ExitCode, ExitError, UsageError } from '../shared/errors.js';
import { printable } from '../shared/printable.js';
import { registerUrlSecrets } from '../shared/secrets.js';
import { gunzip } from './open.js';

/**
 * A feed fetched from an http(s) URL (docs/reading.md, "Feeds from a URL"): streamed as it
 * arrives, never held whole; `Content-Encoding: gzip` undone here (a `.gz` file's own gzip is
 * found by its first bytes, as for a file); an optional header from `GENSER_FEED_AUTH`; the
 * validators of the last complete run sent so that an unchanged feed is not downloaded. A
 * download cut half-way is a read error (exit 2): the run stops and marks nothing missing.
 */

export interface Validators {
  etag?: string;
  lastModified?: string;
  /** The run that saw them (for the message when the feed is unchanged). */
  runId?: string;
}

export interface RemoteSettings {
  net: NetworkSettings;
  /** `GENSER_FEED_AUTH` as a header (a registered secret: never shown). */
  auth?: { name: string; value: string };
  /** Wait for the answer's headers, and between two pieces of its body. */
  timeoutMs: number;
  /** The validators the last complete run saw, per URL (sent as If-None-Match / If-Modified-Since). */
  since?: (source: string) => Validators | undefined;
  /** Told the validators of each URL that answered 200 (kept when the run completes). */
  seen?: (source: string, validators: Validators) => void;
}

/**
 * The server answered 304 to the validators of the last run that ended well: nothing is read or
 * sent, and the run ends with exit 0 (a success, not a problem).
 */
export class FeedUnchanged extends ExitError {
  constructor(
    readonly source: string,
    since: Validators,
  ) {
    super(
      ExitCode.ok,
      `feed unchanged since run ${since.runId ?? '(unknown)'}: ${urlName(source)} answered 304 Not Modified; nothing was downloaded or sent`,
    );
    this.name = 'FeedUnchanged';
  }
}

export const isUrl = (source: string): boolean => /^https?:\/\//i.test(source);

/** The URL as messages and reports name it: no credentials, and a query (often a token) hidden. */
export function urlName(source: string): string {
  try {
    const url = new URL(source);
    return printable(`${url.origin}${url.pathname}${url.search ? '?…' : ''}`);
  } catch {
    return printable(source);
  }
}

/** Refuses what cannot be fetched, before anything is read: a bad URL, a password in it. */
export function checkFeedUrl(source: string): URL {
  let url: URL;
  try {
    url = new URL(source);
  } catch {
    throw new UsageError(`${printable(source)}: not a URL`, 'Give an absolute http(s) URL or a file path.');
  }
  registerUrlSecrets(url);
  if (url.username || url.password)
    throw new UsageError(
      `${urlName(source)}: credentials in a feed URL are refused (they would show in ps and shell history)`,
      'Put them in GENSER_FEED_AUTH instead, e.g. GENSER_FEED_AUTH="Basic $(printf user:password | base64)".',
    );
  return url;
}

/** `GENSER_FEED_AUTH`: `Name: value` sends that header, anything else is the Authorization header. */
export function feedAuthHeader(value: string): { name: string; value: string } {
  const named = /^([A-Za-z0-9-]+):\s*(.+)$/.exec(value.trim());
  if (named && !/^(basic|bearer|token|digest)$/i.test(named[1]))
    return { name: named[1].toLowerCase(), value: named[2] };
  return { name: 'authorization', value: value.trim() };
}

/** The body of `source`, as it arrives. */
export async function openUrl(
  source: string,
  file: string,
  remote: RemoteSettings,
): Promise<AsyncIterable<Buffer>> {
  const url = checkFeedUrl(source);
  const headers: Record<string, string> = {};
  if (remote.auth) headers[remote.auth.name] = remote.auth.value;
  const since = remote.since?.(source);
  if (since?.etag) headers['if-none-match'] = since.etag;
  if (since?.lastModified) headers['if-modified-since'] = since.lastModified;
  let res: Download;
  try {
    res = await download({ url, net: remote.net, headers, timeoutMs: remote.timeoutMs });
  } catch (err) {
    const failure = describeTransportError(err);
    throw new UsageError(
      `${file}: cannot fetch the feed (${failure.config?.message ?? failure.message})`,
      failure.config?.hint ?? 'Check the URL and the network (proxy: --proxy, HTTPS_PROXY; CA: --ca-file).',
    );
  }
  if (res.status === 304 && since) {
    await res.close();
    throw new FeedUnchanged(source, since);
  }
  if (res.status !== 200) {
    await res.close();
    throw statusError(file, res.status, remote.auth !== undefined);
  }
  const validators = validatorsOf(res.headers);
  if (validators) remote.seen?.(source, validators);
  const encoding = String(res.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity' && encoding !== 'gzip') {
    await res.close();
    throw new UsageError(
      `${file}: the server sent Content-Encoding ${printable(encoding)}, which genser does not read`,
      'genser asks for gzip; have the server send gzip or no encoding.',
    );
  }
  const body = cutIsError(res, file);
  return encoding === 'gzip' ? gunzip(body, file) : body;
}

function statusError(file: string, status: number, withAuth: boolean): UsageError {
  if (status === 401 || status === 403)
    return new UsageError(
      `${file}: the server refused the download (HTTP ${status})`,
      withAuth
        ? 'Check the credentials in GENSER_FEED_AUTH (the value is not shown).'
        : 'Give the credentials in GENSER_FEED_AUTH, e.g. "Bearer TOKEN" or "X-Api-Key: KEY".',
    );
  if (status === 404) return new UsageError(`${file}: no feed there (HTTP 404)`, 'Check the URL.');
  return new UsageError(
    `${file}: the server answered HTTP ${status} instead of the feed`,
    status >= 500 ? 'The feed server is failing: run again later.' : 'Check the URL.',
  );
}

function validatorsOf(headers: Download['headers']): Validators | undefined {
  const etag = headers.etag;
  const lastModified = headers['last-modified'];
  const v: Validators = {};
  if (typeof etag === 'string') v.etag = etag;
  if (typeof lastModified === 'string') v.lastModified = lastModified;
  return v.etag || v.lastModified ? v : undefined;
}

/** The body; a connection cut before its end (Content-Length or chunked framing) is a read error. */
async function* cutIsError(res: Download, file: string): AsyncGenerator<Buffer> {
  let bytes = 0;
  try {
    for await (const chunk of res.body) {
      bytes += chunk.length;
      yield chunk;
    }
  } catch (err) {
    throw new UsageError(
      `${file}: the download was cut after ${bytes} bytes (${describeTransportError(err).message})`,
      'The feed is incomplete: no product was marked missing; run again when the server sends it whole.',
    );
  } finally {
    await res.close();
  }
}
