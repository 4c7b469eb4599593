import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { connect as netConnect } from 'node:net';
import { type DetailedPeerCertificate, connect as tlsConnect } from 'node:tls';

/**
 * Opening a connection the way a request would, to look at it: straight to the host or through
 * a proxy's CONNECT tunnel, then the TLS handshake with the same trusted CAs, without verifying,
 * to read the certificate the host presents. Used to say what is wrong with a certificate once
 * a request failed on it (src/http/network.ts), and by `genser doctor`. Nothing is sent.
 */

export interface Endpoint {
  host: string;
  port: number;
}

/** A proxy answered CONNECT with something other than 200, or went away. */
export class TunnelError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'TunnelError';
  }
}

const basicAuth = (proxy: URL): Record<string, string> =>
  proxy.username || proxy.password
    ? {
        'proxy-authorization': `Basic ${Buffer.from(
          `${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`,
        ).toString('base64')}`,
      }
    : {};

/** A TCP socket to `to`: direct, or a tunnel through `proxy` (CONNECT host:port). */
export function openSocket(
  to: Endpoint,
  proxy: URL | undefined,
  timeoutMs: number,
  ca?: string[],
): Promise<Socket> {
  if (!proxy)
    return new Promise((resolve, reject) => {
      const socket = netConnect({ host: to.host, port: to.port });
      socket.setTimeout(timeoutMs, () =>
        socket.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })),
      );
      socket.once('connect', () => {
        socket.setTimeout(0);
        resolve(socket);
      });
      socket.once('error', reject);
    });
  return new Promise((resolve, reject) => {
    const authority = to.host.includes(':') ? `[${to.host}]:${to.port}` : `${to.host}:${to.port}`;
    const send = proxy.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80),
      method: 'CONNECT',
      path: authority,
      headers: { host: authority, ...basicAuth(proxy) },
      timeout: timeoutMs,
      ...(ca ? { ca } : {}),
    });
    req.once('connect', (res, socket) => {
      if (res.statusCode === 200) return resolve(socket);
      socket.destroy();
      reject(
        new TunnelError(`Proxy response (${res.statusCode}) !== 200 when HTTP Tunneling`, res.statusCode),
      );
    });
    req.once('timeout', () =>
      req.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })),
    );
    req.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'ECONNRESET' || err.code === 'UND_ERR_SOCKET'
          ? Object.assign(err, { dropped: true })
          : err,
      ),
    );
    req.end();
  });
}

export interface PeerCertificate {
  subject: string;
  issuer: string;
  validFrom: Date;
  validTo: Date;
  /** The names it is issued for (subjectAltName DNS and IP entries, else the CN). */
  names: string[];
  selfSigned: boolean;
  /** Whether Node, with these CAs, trusts it for this host; else the OpenSSL/Node code. */
  authorized: boolean;
  authorizationError?: string;
  protocol?: string;
}

const nameOf = (entity: Record<string, string | string[]> | undefined): string => {
  if (!entity) return '?';
  const cn = entity.CN ?? entity.O;
  return (Array.isArray(cn) ? cn[0] : cn) ?? '?';
};

export function certificateOf(
  cert: DetailedPeerCertificate,
): Omit<PeerCertificate, 'authorized' | 'authorizationError' | 'protocol'> {
  const alt = (cert.subjectaltname ?? '')
    .split(/,\s*/)
    .map((n) => n.replace(/^(DNS|IP Address):/, ''))
    .filter((n) => n !== '');
  const subject = nameOf(cert.subject as unknown as Record<string, string>);
  const issuer = nameOf(cert.issuer as unknown as Record<string, string>);
  return {
    subject,
    issuer,
    validFrom: new Date(cert.valid_from),
    validTo: new Date(cert.valid_to),
    names: alt.length > 0 ? alt : [subject],
    selfSigned: cert.fingerprint256 === cert.issuerCertificate?.fingerprint256,
  };
}

/** The TLS handshake on `socket` (or a new connection), without verifying: what the host presents. */
export function probeTls(
  to: Endpoint & { servername: string },
  socket: Socket | undefined,
  timeoutMs: number,
  ca?: string[],
): Promise<PeerCertificate> {
  return new Promise((resolve, reject) => {
    const tls = tlsConnect({
      ...(socket ? { socket } : { host: to.host, port: to.port }),
      servername: to.servername,
      // Only to read the certificate: nothing is sent on this connection, and it is closed.
      rejectUnauthorized: false,
      ...(ca ? { ca } : {}),
    });
    tls.setTimeout(timeoutMs, () =>
      tls.destroy(Object.assign(new Error('TLS handshake timed out'), { code: 'ETIMEDOUT' })),
    );
    tls.once('secureConnect', () => {
      const cert = tls.getPeerCertificate(true);
      const error = tls.authorizationError as unknown as string | Error | null;
      const peer: PeerCertificate = {
        ...certificateOf(cert),
        authorized: tls.authorized,
        protocol: tls.getProtocol() ?? undefined,
      };
      if (error)
        peer.authorizationError =
          typeof error === 'string' ? error : ((error as { code?: string }).code ?? error.message);
      tls.destroy();
      resolve(peer);
    });
    tls.once('error', reject);
  });
}
