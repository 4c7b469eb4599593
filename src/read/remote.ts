import { type Download, download } from '../http/download.js';
import { describeTransportError } from '../http/transport-error.js';
import { UsageError } from '../shared/errors.js';
import { printable } from '../shared/printable.js';
import { checkFeedUrl, FeedUnchanged, type RemoteSettings, type Validators } from './feed-url.js';
import { gunzip } from './open.js';

/**
 * A feed fetched from an http(s) URL, the download (docs/reading.md, "Feeds from a URL"): streamed as it
 * arrives, never held whole; `Content-Encoding: gzip` undone here (a `.gz` file's own gzip is
 * found by its first bytes, as for a file); an optional header from `GENSER_FEED_AUTH`; the
 * validators of the last complete run sent so that an unchanged feed is not downloaded. A
 * download cut half-way is a read error (exit 2): the run stops and marks nothing missing.
 */

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
  const decoded = encoding === 'gzip' ? gunzip(body, file) : body;
  return remote.copy ? remote.copy(source, decoded) : decoded;
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
