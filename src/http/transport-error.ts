import { oneLine } from './response.js';

/**
 * What a request that got no HTTP answer means (pure). One classification for products and
 * events: `timeout` (no answer within --timeout) or `network`; whether the request may have
 * reached the service (and so may have landed); whether the host name did not resolve.
 */
export interface TransportFailure {
  status: 'timeout' | 'network';
  message: string;
  /** false only when the error came before a byte was written (no connection was made). */
  mayHaveLanded: boolean;
  /** ENOTFOUND / EAI_AGAIN: the host name did not resolve. */
  dns: boolean;
  /** The system or undici error code, when there is one. */
  code?: string;
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

export function describeTransportError(err: unknown): TransportFailure {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } } | undefined;
  const code = e?.code ?? e?.cause?.code;
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
