import { lookup } from 'node:dns/promises';
import type { Socket } from 'node:net';
import { readBounded } from '../http/answer-bound.js';
import { certificateProblem, connectVerdict } from '../http/connect-error.js';
import { dispatcherFor, type NetworkSettings, type Route, routeOf, trustedCas } from '../http/network.js';
import { proxyLabel } from '../http/proxy.js';
import { answerMessage } from '../http/response.js';
import { openSocket, type PeerCertificate, probeTls, TunnelError } from '../http/tls-probe.js';
import { describeTransportError } from '../http/transport-error.js';
import { ExitCode } from '../shared/errors.js';
import { printable } from '../shared/printable.js';
import type { Check } from './report.js';

/**
 * The checks of one configured host, step by step as a request goes: which proxy (or none),
 * DNS, TCP (or the proxy's tunnel), TLS, an HTTP answer, the key, the clock. A step that fails
 * ends the host's checks: the later ones could only fail with it.
 */

export interface HostToCheck {
  /** "API", "events", "search". */
  role: string;
  url: string;
  /** The request that proves the key and stores nothing (./key-probe.ts). */
  probe?: { path: string; headers: Record<string, string>; body: string; keyName: string };
}

export interface HostCheckDeps {
  now?: () => Date;
  timeoutMs: number;
}

const ms = (since: number) => `${Date.now() - since} ms`;
const DAY = 86_400_000;
/** A clock further off than this makes events' times and the daily batch's day wrong. */
export const MAX_SKEW_S = 300;
const WARN_SKEW_S = 30;
const WARN_EXPIRY_DAYS = 14;

function failed(
  step: string,
  host: string,
  detail: string,
  hint: string | undefined,
  exitCode: Check['exitCode'],
): Check {
  return { step, host, status: 'fail', detail, hint, exitCode };
}

export async function checkHost(h: HostToCheck, net: NetworkSettings, deps: HostCheckDeps): Promise<Check[]> {
  const host = `${h.role} ${h.url}`;
  const now = deps.now ?? (() => new Date());
  const target = new URL(h.url);
  const route = routeOf(target, net);
  const checks: Check[] = [];
  const proxy = route.proxy.url;
  checks.push({
    step: 'proxy',
    host,
    status: 'pass',
    detail: proxy
      ? `through ${proxyLabel(proxy)} (${route.proxy.from})`
      : route.proxy.bypassedBy
        ? `direct: ${route.proxy.from} lists ${printable(route.proxy.bypassedBy)}`
        : `direct: ${route.proxy.from}`,
  });

  const dnsName = proxy ? proxy.hostname.replace(/^\[|\]$/g, '') : route.host;
  const started = Date.now();
  try {
    const found = await lookup(dnsName, { all: true });
    checks.push({
      step: 'dns',
      host,
      status: 'pass',
      detail: `${dnsName}${proxy ? ' (the proxy; it resolves the host itself)' : ''}: ${found.map((a) => a.address).join(', ')} (${ms(started)})`,
    });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    checks.push(
      failed(
        'dns',
        host,
        `${dnsName} does not resolve (${code})`,
        proxy ? `check the proxy address (${route.proxy.from})` : 'check the host name in the URL',
        ExitCode.usage,
      ),
    );
    return checks;
  }

  const cas = trustedCas(net);
  let socket: Socket;
  const connectStarted = Date.now();
  try {
    socket = await openSocket(route, proxy, deps.timeoutMs, cas);
    checks.push({
      step: 'tcp',
      host,
      status: 'pass',
      detail: proxy
        ? `tunnel to ${route.host}:${route.port} opened by the proxy (${ms(connectStarted)})`
        : `connected to ${socket.remoteAddress}:${route.port} (${ms(connectStarted)})`,
    });
  } catch (err) {
    const e = err as Error & { code?: string; dropped?: boolean };
    const cause =
      err instanceof TunnelError
        ? e
        : Object.assign(e, { code: e.code ?? (e.dropped ? 'UND_ERR_SOCKET' : undefined) });
    const v = connectVerdict(cause, route, undefined, now());
    checks.push(
      failed(
        'tcp',
        host,
        v.message,
        v.hint ?? 'is the service up, and is this the right port?',
        v.config ? ExitCode.usage : ExitCode.unavailable,
      ),
    );
    return checks;
  }

  if (route.https) {
    const tlsCheck = await checkTls(route, socket, cas, deps.timeoutMs, now()).catch((err: unknown) => {
      const v = connectVerdict(err as Error, route, undefined, now());
      return failed('tls', host, v.message, v.hint, ExitCode.usage);
    });
    checks.push({ ...tlsCheck, host });
    if (tlsCheck.status === 'fail') return checks;
  } else socket.destroy();

  checks.push(...(await checkHttp(h, host, net, deps, now)));
  return checks;
}

async function checkTls(
  route: Route,
  socket: Socket,
  cas: string[] | undefined,
  timeoutMs: number,
  now: Date,
): Promise<Check> {
  const peer: PeerCertificate = await probeTls({ ...route, servername: route.host }, socket, timeoutMs, cas);
  const days = Math.floor((peer.validTo.getTime() - now.getTime()) / DAY);
  const about = `${peer.protocol ?? 'TLS'}, subject ${peer.subject}, issued by ${peer.issuer}, expires ${peer.validTo.toISOString().slice(0, 10)} (${days} days)`;
  if (!peer.authorized) {
    const p = certificateProblem(
      peer.authorizationError ?? 'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      peer,
      route.host,
      now,
    );
    return {
      step: 'tls',
      status: 'fail',
      detail: `${p.message}; ${about}`,
      hint: p.hint,
      exitCode: ExitCode.usage,
    };
  }
  if (days < WARN_EXPIRY_DAYS)
    return {
      step: 'tls',
      status: 'warn',
      detail: about,
      hint: `the certificate expires in ${days} days: tell whoever runs ${route.host}`,
    };
  return { step: 'tls', status: 'pass', detail: about };
}

/** One request: reachability, the key (when there is one), the clock from the Date header. */
async function checkHttp(
  h: HostToCheck,
  host: string,
  net: NetworkSettings,
  deps: HostCheckDeps,
  now: () => Date,
): Promise<Check[]> {
  const url = new URL(h.url);
  const base = url.pathname.replace(/\/+$/, '');
  const probe = h.probe ?? { path: '/', headers: {}, body: '', keyName: '' };
  const { dispatcher } = dispatcherFor(url, net, { connections: 1, timeoutMs: deps.timeoutMs });
  const started = Date.now();
  let status: number;
  let text: string;
  let date: string | undefined;
  try {
    const res = await dispatcher.request({
      origin: url.origin,
      method: h.probe ? 'POST' : 'GET',
      path: base + probe.path,
      headers: { 'content-type': 'application/json', 'user-agent': 'genser-doctor', ...probe.headers },
      body: h.probe ? probe.body : undefined,
      signal: AbortSignal.timeout(deps.timeoutMs),
    });
    status = res.statusCode;
    const d = res.headers.date;
    date = Array.isArray(d) ? d[0] : d;
    text = await readBounded(res, url.href);
  } catch (err) {
    const f = describeTransportError(err, now());
    return [
      failed(
        'http',
        host,
        f.config?.message ?? f.message,
        f.config?.hint,
        f.config ? ExitCode.usage : ExitCode.unavailable,
      ),
    ];
  } finally {
    await dispatcher.close();
  }
  const checks: Check[] = [];
  const said = `${h.probe ? 'POST' : 'GET'} ${base + probe.path}: HTTP ${status} (${ms(started)})`;
  if (status >= 500 || status === 429)
    checks.push(
      failed(
        'http',
        host,
        `${said}: ${answerMessage(status, text)}`,
        'the service is unavailable now; run again later',
        ExitCode.unavailable,
      ),
    );
  else if ((status === 404 || status === 405) && h.probe)
    checks.push(
      failed(
        'http',
        host,
        `${said}: not the service's endpoint`,
        'check the URL and its base path (and --path)',
        ExitCode.usage,
      ),
    );
  else checks.push({ step: 'http', host, status: 'pass', detail: said });
  if (h.probe) checks.push(keyCheck(h.probe.keyName, status, host, text));
  else checks.push({ step: 'key', host, status: 'skip', detail: 'no key configured for this host' });
  checks.push(clockCheck(date, now(), host));
  return checks;
}

function keyCheck(keyName: string, status: number, host: string, text: string): Check {
  if (status === 401 || status === 403)
    return failed(
      'key',
      host,
      `the ${keyName} was refused (HTTP ${status}): ${answerMessage(status, text)}`,
      `check the ${keyName}: the right one for this host, no stray characters`,
      ExitCode.auth,
    );
  if (status === 400 || status === 422 || (status >= 200 && status < 300))
    return {
      step: 'key',
      host,
      status: 'pass',
      detail: `the ${keyName} was accepted (HTTP ${status} to a request that stores nothing)`,
    };
  return { step: 'key', host, status: 'skip', detail: `not known: HTTP ${status}` };
}

export function clockCheck(date: string | undefined, now: Date, host?: string): Check {
  const at = date ? Date.parse(date) : Number.NaN;
  if (Number.isNaN(at))
    return { step: 'clock', host, status: 'skip', detail: 'the answer had no Date header' };
  // The Date header has whole seconds: a second either way is no skew.
  const skew = Math.round((now.getTime() - at) / 1000);
  const detail =
    skew === 0 || Math.abs(skew) <= 1
      ? 'in step with the server'
      : `${Math.abs(skew)} s ${skew > 0 ? 'ahead of' : 'behind'} the server`;
  if (Math.abs(skew) > MAX_SKEW_S)
    return {
      step: 'clock',
      host,
      status: 'fail',
      detail,
      hint: 'set the clock right (NTP): events carry their own time, and the daily batch day comes from it',
      exitCode: ExitCode.usage,
    };
  if (Math.abs(skew) > WARN_SKEW_S)
    return { step: 'clock', host, status: 'warn', detail, hint: 'set the clock right (NTP)' };
  return { step: 'clock', host, status: 'pass', detail };
}
