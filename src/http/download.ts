import type { Dispatcher } from 'undici';
import { dispatcherFor, type NetworkSettings } from './network.js';

/**
 * One streamed GET (a feed fetched from a URL: docs/reading.md, "Feeds from a URL"): through the
 * proxy and CAs of `net`, redirects followed (at most MAX_REDIRECTS; the extra headers, which
 * may carry a secret, go only to the first URL's origin, as curl does), the body handed on as
 * it arrives. Nothing here decides what the answer means: src/read/remote.ts does.
 */
export interface DownloadRequest {
  url: URL;
  net: NetworkSettings;
  /** Sent to the first URL's origin only (authorization, If-None-Match...). */
  headers: Record<string, string>;
  /** Wait for the headers, and between two pieces of the body. */
  timeoutMs: number;
}

export interface Download {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The URL that answered (after redirects). */
  url: URL;
  /** The body as it arrives; an error while it flows (the connection cut) is thrown from it. */
  body: AsyncIterable<Buffer>;
  /** Ends the request and frees its connection (also when the body was not read). */
  close(): Promise<void>;
}

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function download(req: DownloadRequest): Promise<Download> {
  let url = req.url;
  for (let hop = 0; ; hop++) {
    const sameOrigin = url.origin === req.url.origin;
    const { dispatcher } = dispatcherFor(url, req.net, { connections: 1, timeoutMs: req.timeoutMs });
    let res: Dispatcher.ResponseData;
    try {
      res = await dispatcher.request({
        origin: url.origin,
        method: 'GET',
        path: url.pathname + url.search,
        headers: { 'accept-encoding': 'gzip', ...(sameOrigin ? req.headers : {}) },
      });
    } catch (err) {
      await dispatcher.destroy();
      throw err;
    }
    const close = async () => {
      // Destroying a body not read to its end raises an abort on it: the close asked for it.
      res.body.on('error', () => {});
      res.body.destroy();
      await dispatcher.destroy();
    };
    const location = res.headers.location;
    if (REDIRECTS.has(res.statusCode) && typeof location === 'string' && hop < MAX_REDIRECTS) {
      await close();
      url = new URL(location, url);
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new Error(`redirected to a ${url.protocol.slice(0, -1)} URL, which genser does not fetch`);
      continue;
    }
    return { status: res.statusCode, headers: res.headers, url, body: res.body, close };
  }
}
