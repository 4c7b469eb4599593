import { readFileSync } from 'node:fs';
import * as tls from 'node:tls';
import { buildConnector, type Dispatcher, Pool, ProxyAgent } from 'undici';
import { PEM } from './ca-file.js';
import { type ProxyChoice, type ProxySettings, proxyFor } from './proxy.js';
import { openSocket, type PeerCertificate, probeTls } from './tls-probe.js';

/**
 * How genser reaches a host (docs/networks.md): through the proxy `proxyFor` picks, trusting
 * Node's CAs plus `--ca-file`. Every connection failure, before a byte of a request was
 * written (DNS, TCP, the proxy's CONNECT, the TLS handshake), comes out as a ConnectFailure
 * that names the host and the proxy, so the sender can tell "never reached the service" from
 * "may have landed"; a certificate failure carries what the host presented.
 */

export interface NetworkSettings extends ProxySettings {
  /** `--ca-file` (env GENSER_CA_FILE): certificates added to Node's own. */
  ca?: { file: string; pems: string[] };
  /** `--compress`: request bodies gzip-compressed (`Content-Encoding: gzip`), or as they are. */
  compress?: 'none' | 'gzip';
}

export interface Route {
  host: string;
  port: number;
  https: boolean;
  proxy: ProxyChoice;
}

export class ConnectFailure extends Error {
  readonly code = 'GENSER_CONNECT';
  /** What the host presented, when the failure is its certificate. */
  peer?: PeerCertificate;

  constructor(
    override readonly cause: Error & { code?: string },
    readonly route: Route,
  ) {
    super(cause.message);
    this.name = 'ConnectFailure';
  }
}

/** Node's own CAs (with NODE_EXTRA_CA_CERTS), as Node would trust them without a `ca` option. */
function nodeDefaultCas(env: Record<string, string | undefined>): string[] {
  const get = (tls as { getCACertificates?: (kind: string) => string[] }).getCACertificates;
  if (get) return get('default');
  const extra = env.NODE_EXTRA_CA_CERTS;
  let extraPems: string[] = [];
  if (extra)
    try {
      extraPems = readFileSync(extra, 'utf8').match(PEM) ?? [];
    } catch {
      // Node itself warned at start-up that it could not read the file.
    }
  return [...tls.rootCertificates, ...extraPems];
}

/** The `ca` option for every TLS connection: undefined leaves Node's defaults alone. */
export function trustedCas(net: NetworkSettings): string[] | undefined {
  return net.ca ? [...nodeDefaultCas(net.env), ...net.ca.pems] : undefined;
}

export function routeOf(target: URL, net: NetworkSettings): Route {
  const https = target.protocol === 'https:';
  return {
    host: target.hostname.replace(/^\[|\]$/g, ''),
    port: target.port ? Number(target.port) : https ? 443 : 80,
    https,
    proxy: proxyFor(target, net),
  };
}

const CERT_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_UNTRUSTED',
  'CERT_REVOKED',
]);

/** The error under undici's wrappers (a proxy's SecureProxyConnectionError keeps it as `cause`). */
export function rootCause(err: Error & { code?: string; cause?: unknown }): Error & { code?: string } {
  return err.cause instanceof Error && err.code === 'UND_ERR_PRX_TLS'
    ? (err.cause as Error & { code?: string })
    : err;
}

type Connector = buildConnector.connector;

/** Wraps a connector so that its failures become ConnectFailures, with the certificate looked at. */
function tagged(connect: Connector, route: Route, cas: string[] | undefined, timeoutMs: number): Connector {
  return (opts, callback) =>
    connect(opts, (err, socket) => {
      if (!err) return callback(null, socket as NonNullable<typeof socket>);
      const failure = new ConnectFailure(rootCause(err), route);
      if (!CERT_CODES.has(failure.cause.code ?? '')) return callback(failure, null);
      // The failed handshake left nothing to read: a second one, unverified, reads the certificate.
      openSocket(route, route.proxy.url, timeoutMs, cas)
        .then((raw) => probeTls({ ...route, servername: opts.servername ?? route.host }, raw, timeoutMs, cas))
        .then(
          (peer) => {
            failure.peer = peer;
          },
          () => undefined,
        )
        .finally(() => callback(failure, null));
    });
}

export interface DispatchOptions {
  connections: number;
  timeoutMs: number;
}

/**
 * The dispatcher for one origin: a keep-alive Pool, straight or through the proxy's tunnel
 * (CONNECT for http:// URLs too, so that no byte of a request goes anywhere before the tunnel
 * to the host is open).
 */
export function dispatcherFor(
  target: URL,
  net: NetworkSettings,
  o: DispatchOptions,
): { dispatcher: Dispatcher; route: Route } {
  const route = routeOf(target, net);
  const cas = trustedCas(net);
  const tlsOptions = cas ? { ca: cas } : {};
  const common = {
    connections: o.connections,
    keepAliveTimeout: 30_000,
    headersTimeout: o.timeoutMs,
    bodyTimeout: o.timeoutMs,
  };
  const proxy = route.proxy.url;
  if (!proxy) {
    const connect = tagged(
      buildConnector({ ...tlsOptions, timeout: Math.min(o.timeoutMs, 10_000) }),
      route,
      cas,
      o.timeoutMs,
    );
    return { dispatcher: new Pool(target.origin, { ...common, connect }), route };
  }
  const dispatcher = new ProxyAgent({
    ...common,
    uri: proxy.href,
    requestTls: tlsOptions,
    proxyTls: tlsOptions,
    factory: (origin, opts) =>
      new Pool(origin, {
        ...opts,
        connect: tagged((opts as { connect: Connector }).connect, route, cas, o.timeoutMs),
      }),
  });
  return { dispatcher, route };
}
