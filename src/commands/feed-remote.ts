import { feedAuthHeader, type RemoteSettings } from '../read/index.js';
import { registerSecret } from '../shared/secrets.js';
import type { CommandContext } from './context.js';

/** Wait for a feed server's headers, and between two pieces of its body. */
const FEED_TIMEOUT_MS = 60_000;

/**
 * How the feed commands fetch an http(s) feed (docs/reading.md, "Feeds from a URL"): the
 * command's proxy and CAs, and `GENSER_FEED_AUTH` (a secret: registered before anything can
 * print it; from the environment only, never a flag).
 */
export function feedRemote(ctx: Pick<CommandContext, 'env' | 'network'>): RemoteSettings {
  const remote: RemoteSettings = { net: ctx.network ?? { env: ctx.env }, timeoutMs: FEED_TIMEOUT_MS };
  const auth = ctx.env.GENSER_FEED_AUTH?.trim();
  if (auth) {
    remote.auth = feedAuthHeader(auth);
    registerSecret(auth);
    registerSecret(remote.auth.value);
    // `Basic <base64>`: the token alone, and what it decodes to, are secrets too.
    const token = /^\S+\s+(\S+)$/.exec(remote.auth.value)?.[1];
    if (token) registerSecret(token);
  }
  return remote;
}
