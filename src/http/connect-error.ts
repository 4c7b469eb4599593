import type { Route } from './network.js';
import { proxyLabel } from './proxy.js';
import type { PeerCertificate } from './tls-probe.js';

/**
 * What a connection that failed before any request byte was written means, in one line with
 * its fix (pure; docs/networks.md, "What each network error means"). A certificate or protocol
 * mismatch, and any refusal by the proxy, is a configuration error: retrying cannot help.
 */

export interface ConnectVerdict {
  /** A configuration error: stop the run, exit 2. Otherwise a passing network error, retried. */
  config: boolean;
  message: string;
  hint?: string;
  /** The host name did not resolve (a configuration error only before the host ever answered). */
  dns: boolean;
}

const DNS = new Set(['ENOTFOUND', 'EAI_AGAIN']);
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'EADDRNOTAVAIL',
]);
const DROPPED = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE', 'UND_ERR_CLOSED']);
const PROTOCOL = /wrong version number|packet length too long|unknown protocol|http request|ERR_SSL_/i;

const day = (d: Date): string => d.toISOString().slice(0, 10);

const CA_FIX =
  "if this is your company's CA, give its certificate with --ca-file FILE (env GENSER_CA_FILE) or NODE_EXTRA_CA_CERTS; check --api-url / --base-url otherwise";

/** What is wrong with the host's certificate, from Node's code and what the host presented. */
export function certificateProblem(
  code: string,
  peer: PeerCertificate | undefined,
  host: string,
  now: Date,
): { message: string; hint: string } {
  const issued = peer ? ` (subject ${peer.subject}, issued by ${peer.issuer})` : '';
  switch (code) {
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return { message: `the certificate of ${host} is self-signed${issued}, and not trusted`, hint: CA_FIX };
    case 'CERT_HAS_EXPIRED':
      return {
        message: `the certificate of ${host} expired${peer ? ` on ${day(peer.validTo)} (${Math.floor((now.getTime() - peer.validTo.getTime()) / 86_400_000)} days ago)` : ''}${issued}`,
        hint: `the server's certificate must be renewed by whoever runs ${host}; check the machine's clock too (it says ${day(now)})`,
      };
    case 'CERT_NOT_YET_VALID':
      return {
        message: `the certificate of ${host} is not valid yet${peer ? ` (from ${day(peer.validFrom)})` : ''}${issued}`,
        hint: `check this machine's clock (it says ${day(now)})`,
      };
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return {
        message: `the certificate of ${host} is issued for ${peer ? peer.names.join(', ') : 'other names'}, not ${host}`,
        hint: 'use the host name the certificate is issued for in the URL',
      };
    default:
      return {
        message: `the certificate of ${host} is not trusted: its issuer${peer ? ` ${peer.issuer}` : ''} is not a known CA (${code})`,
        hint: CA_FIX,
      };
  }
}

/** A failure while connecting to `route`, `cause` being the error underneath. */
export function connectVerdict(
  cause: Error & { code?: string },
  route: Route,
  peer: PeerCertificate | undefined,
  now: Date,
): ConnectVerdict {
  const code = cause.code ?? '';
  const target = `${route.host}:${route.port}`;
  const proxy = route.proxy.url;
  const tunnel =
    /Proxy response \((\d+)\)/.exec(cause.message) ??
    /Proxy Authentication Required \((\d+)\)/.exec(cause.message);
  if (proxy) {
    const name = `the proxy ${proxyLabel(proxy)} (${route.proxy.from})`;
    const status = tunnel ? Number(tunnel[1]) : undefined;
    // Some proxies (tinyproxy) answer a CONNECT without good credentials with 401, not 407.
    if (status === 407 || status === 401)
      return {
        config: true,
        dns: false,
        message: `${name} asks for credentials (HTTP ${status})${proxy.username ? ': the ones given were refused' : ''}`,
        hint: 'put them in the proxy URL: --proxy http://USER:PASSWORD@host:port (or GENSER_PROXY, HTTPS_PROXY); they are never printed',
      };
    if (status !== undefined)
      return {
        config: true,
        dns: false,
        message: `${name} refused to open a tunnel to ${target} (HTTP ${status})`,
        hint: `ask its administrators to allow CONNECT to ${target}, or, if ${route.host} is reachable without it, add it to NO_PROXY`,
      };
    // Anything else before the tunnel opened is the proxy itself: a TLS error comes from the host.
    if (!/^(ERR_TLS|ERR_SSL|CERT_|DEPTH_|SELF_|UNABLE_)/.test(code) && !PROTOCOL.test(cause.message)) {
      if (UNREACHABLE.has(code))
        return {
          config: true,
          dns: false,
          message: `${name} cannot be reached (${code})`,
          hint: `check the proxy's address and port, or unset ${route.proxy.from} if this network needs no proxy`,
        };
      if (DROPPED.has(code))
        return {
          config: true,
          dns: false,
          message: `${name} closed the connection before the tunnel to ${target} opened (${code})`,
          hint: 'check that the address is an HTTP proxy that allows CONNECT, and its logs',
        };
    }
  }
  const isCert = code !== '' && /^(CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO|ERR_TLS_CERT)/.test(code);
  if (isCert) return { config: true, dns: false, ...certificateProblem(code, peer, route.host, now) };
  if (PROTOCOL.test(cause.message) || /^ERR_SSL_/.test(code))
    return {
      config: true,
      dns: false,
      message: route.https
        ? `${target} does not speak TLS (https) there: it looks like a plain-HTTP port (${code || 'TLS error'})`
        : `${target}: TLS error (${code})`,
      hint: route.https ? 'use http:// for this port, or the port that serves https' : 'check the URL',
    };
  return {
    config: false,
    dns: DNS.has(code),
    message: code ? `cannot connect to ${target} (${code})` : cause.message,
  };
}
