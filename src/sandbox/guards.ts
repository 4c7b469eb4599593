import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { hostname } from 'node:os';
import { errorReply, type Reply } from './reply.js';

/**
 * What a web page in the user's browser could make the sandbox do (docs/sandbox.md, "Who can
 * reach it"). DNS rebinding: a page on evil.example whose name later resolves to 127.0.0.1
 * reaches the sandbox with `Host: evil.example`; only the names of the address it is bound to
 * are answered. A simple cross-origin request (a no-cors fetch, a form) reaches any route
 * without a preflight; the admin routes refuse foreign Origins and take a POST only with a
 * JSON content type or the X-Genser-Sandbox header, which no simple request can carry.
 */
export const ADMIN_HEADER = 'x-genser-sandbox';

const WILDCARDS = new Set(['', '0.0.0.0', '::', '[::]']);

/** The name part of a Host header: `[::1]:8080` -> `::1`, `Example.com.:80` -> `example.com`. */
export function hostName(host: string): string {
  const lower = host.trim().toLowerCase();
  const name = lower.startsWith('[') ? lower.slice(1, lower.indexOf(']')) : lower.replace(/:\d*$/, '');
  return name.replace(/\.$/, '');
}

function isLoopback(name: string): boolean {
  return name === 'localhost' || name === '::1' || (isIP(name) === 4 && name.startsWith('127.'));
}

/** The Host names the sandbox answers to, for the address it listens on. */
export function hostCheck(boundHost: string): (host: string | undefined) => boolean {
  const bound = hostName(
    boundHost.includes(':') && !boundHost.startsWith('[') ? `[${boundHost}]` : boundHost,
  );
  const wildcard = WILDCARDS.has(bound);
  const machine = hostname().toLowerCase();
  return (host) => {
    // HTTP/1.0 without Host: not a browser (Node refuses an HTTP/1.1 request without one).
    if (host === undefined) return true;
    const name = hostName(host);
    if (isLoopback(name) || name === bound) return true;
    // On every address: any address literal (no DNS name, nothing to rebind) and this machine's name.
    return wildcard && (isIP(name) !== 0 || name === machine);
  };
}

export function wrongHost(host: string): Reply {
  return errorReply(
    'problem',
    403,
    'unknown-host',
    `the sandbox does not answer to Host ${JSON.stringify(host.slice(0, 100))}: use its address (127.0.0.1, localhost, [::1] or the --host it listens on)`,
  );
}

/** A page on another origin must not reach the admin routes (reset, batch, data). */
export function adminRefusal(req: IncomingMessage, method: string): Reply | undefined {
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${req.headers.host ?? ''}`)
    return errorReply(
      'problem',
      403,
      'cross-origin',
      `the sandbox's admin routes take no requests from pages on other origins (Origin ${origin.slice(0, 100)})`,
    );
  if (method !== 'POST') return undefined;
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (type === 'application/json' || req.headers[ADMIN_HEADER] !== undefined) return undefined;
  return errorReply(
    'problem',
    403,
    'simple-request',
    `a POST to an admin route needs Content-Type: application/json or an ${ADMIN_HEADER} header, which no web page can send without asking first`,
  );
}
