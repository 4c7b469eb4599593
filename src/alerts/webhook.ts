import { type Dispatcher, request } from 'undici';

/**
 * The requests of `--notify` and `--ping`. Their URLs are secrets in practice (a Slack webhook
 * or a healthchecks.io ping URL carries its token in the path), so a message names only the
 * URL's origin. An answer is never read beyond a few KB: nothing in it matters but its status.
 */

export interface PostSettings {
  timeoutMs: number;
  /** The dispatcher for a URL's host, with the proxy and CAs of every request genser makes; undici's default otherwise. */
  dispatcher?: (url: URL) => Dispatcher;
}

export type Posted = { ok: true } | { ok: false; message: string };

const MAX_ANSWER = 16 * 1024;

/** `https://hooks.slack.com` for `https://hooks.slack.com/services/T0/B0/XXXX`. */
export function urlOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'an invalid URL';
  }
}

/** healthchecks.io's suffixes: the URL itself on success, `/start` and `/fail` before the query. */
export function pingUrl(base: string, phase: 'start' | 'success' | 'fail'): string {
  if (phase === 'success') return base;
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${phase}`;
  return url.toString();
}

async function drain(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<void> {
  let read = 0;
  for await (const chunk of body) {
    read += chunk.length;
    if (read > MAX_ANSWER) break;
  }
  body.destroy();
}

export async function post(
  url: string,
  body: string,
  contentType: string,
  settings: PostSettings,
): Promise<Posted> {
  const where = urlOrigin(url);
  const signal = AbortSignal.timeout(settings.timeoutMs);
  try {
    const answer = await request(url, {
      method: 'POST',
      body,
      headers: { 'content-type': contentType, 'user-agent': 'genser' },
      signal,
      ...(settings.dispatcher ? { dispatcher: settings.dispatcher(new URL(url)) } : {}),
    });
    await drain(answer.body);
    if (answer.statusCode >= 200 && answer.statusCode < 300) return { ok: true };
    return { ok: false, message: `${where} answered HTTP ${answer.statusCode}` };
  } catch (err) {
    if (signal.aborted)
      return { ok: false, message: `${where} did not answer within ${settings.timeoutMs / 1000} s` };
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, message: `${where} could not be reached${code ? ` (${code})` : ''}` };
  }
}
