import { connectVerdict } from './connect-error.js';
import type { Route } from './network.js';
import { oneLine } from './response.js';
import type { PeerCertificate } from './tls-probe.js';

/**
 * What a request that got no HTTP answer means (pure). One classification for products and
 * events: `timeout` (no answer within --timeout) or `network`; whether the request may have
 * reached the service (and so may have landed); whether the host name did not resolve; and
 * whether it is a configuration error that no retry can mend (a certificate, the scheme, the
 * proxy, a key that cannot be a header, an answer past the bound: docs/networks.md).
 */
export interface TransportFailure {
  status: 'timeout' | 'network';
  message: string;
  /** false when the error came before a byte was written (no connection was made). */
  mayHaveLanded: boolean;
  /** ENOTFOUND / EAI_AGAIN: the host name did not resolve. */
  dns: boolean;
  /** The system or undici error code, when there is one. */
  code?: string;
  /** Not worth retrying: stop the run with this (exit 2). */
  config?: { message: string; hint?: string };
}

/** Errors raised while connecting: the request was never written. */
const BEFORE_WRITE: ReadonlySet<string> = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNREFUSED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const DNS: ReadonlySet<string> = new Set(['ENOTFOUND', 'EAI_AGAIN']);

interface Raised {
  name?: string;
  code?: string;
  message?: string;
  cause?: Error & { code?: string };
  route?: Route;
  peer?: PeerCertificate;
  limit?: number;
}

export function describeTransportError(err: unknown, now: Date = new Date()): TransportFailure {
  const e = err as Raised | undefined;
  // A ConnectFailure (src/http/network.ts): nothing of the request left this machine.
  if (e?.code === 'GENSER_CONNECT' && e.cause && e.route) {
    const v = connectVerdict(e.cause, e.route, e.peer, now);
    const code = e.cause.code;
    return {
      status: 'network',
      message: oneLine(v.message),
      mayHaveLanded: false,
      dns: v.dns,
      code,
      ...(v.config ? { config: { message: oneLine(v.message), hint: v.hint } } : {}),
    };
  }
  const code = e?.code ?? e?.cause?.code;
  if (e?.code === 'GENSER_ANSWER_TOO_LARGE') {
    const message = oneLine(e.message ?? 'the answer is too large');
    return {
      status: 'network',
      message,
      mayHaveLanded: true,
      dns: false,
      code,
      config: { message, hint: 'the service answers in a few kilobytes: check that the URL points at it' },
    };
  }
  if (code === 'UND_ERR_INVALID_ARG') {
    // undici refused to build the request: a header value it cannot carry (a key with a control character).
    const message = oneLine(`the request could not be built: ${e?.message ?? code}`);
    return {
      status: 'network',
      message,
      mayHaveLanded: false,
      dns: false,
      code,
      config: {
        message,
        hint: 'check the key file or variable for stray characters (the value is not shown)',
      },
    };
  }
  if (e?.name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT')
    // The body may have been written and processed; only the answer is missing.
    return {
      status: 'timeout',
      message: 'no answer within --timeout',
      mayHaveLanded: true,
      dns: false,
      code,
    };
  const text = e?.message ?? String(err);
  return {
    status: 'network',
    message: oneLine(code && !text.includes(code) ? `${code}: ${text}` : text),
    mayHaveLanded: code === undefined || !BEFORE_WRITE.has(code),
    dns: code !== undefined && DNS.has(code),
    code,
  };
}
