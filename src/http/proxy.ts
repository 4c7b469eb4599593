import { BlockList, isIP } from 'node:net';
import { UsageError } from '../shared/errors.js';
import { printable } from '../shared/printable.js';

/**
 * Which proxy a request to a URL goes through (pure; docs/networks.md, "Proxies"). The variables
 * are read as curl reads them: `https_proxy`/`HTTPS_PROXY` for https URLs, `http_proxy`/
 * `HTTP_PROXY` for http URLs, `all_proxy`/`ALL_PROXY` for both, the lower-case spelling first;
 * `--proxy` (env GENSER_PROXY, config `proxy`) comes before all of them. `no_proxy`/`NO_PROXY`
 * lists hosts reached directly, and applies to `--proxy` too (as curl does): `*`, host names
 * (which cover their subdomains; a leading `.` or `*.` is the same), `host:port`, IP addresses
 * and CIDR ranges.
 */

export interface ProxySettings {
  /** `--proxy`, already checked by parseProxyUrl; `from` names where it came from. */
  proxy?: { url: URL; from: string };
  env: Record<string, string | undefined>;
}

export interface ProxyChoice {
  /** The proxy to go through, or undefined: direct. */
  url?: URL;
  /** Where the proxy came from (`--proxy`, `HTTPS_PROXY`), or why there is none. */
  from: string;
  /** The NO_PROXY entry that sent this host direct. */
  bypassedBy?: string;
}

const first = (env: ProxySettings['env'], names: string[]): [string, string] | undefined => {
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) return [name, value];
  }
  return undefined;
};

/** A proxy URL: http:// or https://, a host, no path; a bare `host:port` is http (as curl takes it). */
export function parseProxyUrl(raw: unknown, from: string): URL {
  const text = String(raw).trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    // The text may hold a password: only its shape is shown.
    throw new UsageError(
      `${from} is not a proxy URL`,
      'e.g. http://proxy.example.com:3128 or http://user:password@proxy:3128',
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(
      `${from} must be an http:// or https:// proxy; got ${printable(url.protocol.slice(0, -1))}`,
      'e.g. http://proxy.example.com:3128',
    );
  if (url.hostname === '') throw new UsageError(`${from} has no host`, 'e.g. http://proxy.example.com:3128');
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '')
    throw new UsageError(
      `${from} must be a proxy's address without a path`,
      'e.g. http://proxy.example.com:3128',
    );
  return url;
}

/** The proxy as it may be shown: scheme, host and port, never the credentials. */
export function proxyLabel(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

function defaultPort(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
}

/** The NO_PROXY entry that matches this host and port, if any. */
export function noProxyMatch(hostname: string, port: number, list: string): string | undefined {
  const host = hostname
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '');
  for (const raw of list.split(/[,\s]+/)) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return entry;
    if (entry.includes('/')) {
      if (inCidr(host, entry)) return entry;
      continue;
    }
    let name = entry;
    let entryPort: number | undefined;
    const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
    const hostPort = isIP(entry) === 6 ? null : /^(.*):(\d+)$/.exec(entry);
    if (bracketed) [name, entryPort] = [bracketed[1], bracketed[2] ? Number(bracketed[2]) : undefined];
    else if (hostPort) [name, entryPort] = [hostPort[1], Number(hostPort[2])];
    if (entryPort !== undefined && entryPort !== port) continue;
    name = name.replace(/^\*?\./, '').replace(/\.$/, '');
    if (host === name || (isIP(name) === 0 && host.endsWith(`.${name}`))) return entry;
  }
  return undefined;
}

function inCidr(host: string, entry: string): boolean {
  const [address, bits] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || isIP(host) !== family || !/^\d+$/.test(bits ?? '')) return false;
  const list = new BlockList();
  const type = family === 4 ? 'ipv4' : 'ipv6';
  try {
    list.addSubnet(address, Number(bits), type);
  } catch {
    return false;
  }
  return list.check(host, type);
}

export function proxyFor(target: URL, settings: ProxySettings): ProxyChoice {
  const https = target.protocol === 'https:';
  const fromEnv = first(
    settings.env,
    https
      ? ['https_proxy', 'HTTPS_PROXY', 'all_proxy', 'ALL_PROXY']
      : ['http_proxy', 'HTTP_PROXY', 'all_proxy', 'ALL_PROXY'],
  );
  const chosen =
    settings.proxy ??
    (fromEnv ? { url: parseProxyUrl(fromEnv[1], fromEnv[0]), from: fromEnv[0] } : undefined);
  if (!chosen) return { from: `no proxy set (${https ? 'HTTPS_PROXY' : 'HTTP_PROXY'}, --proxy)` };
  const noProxy = first(settings.env, ['no_proxy', 'NO_PROXY']);
  const hit = noProxy ? noProxyMatch(target.hostname, defaultPort(target), noProxy[1]) : undefined;
  if (noProxy && hit !== undefined) return { from: noProxy[0], bypassedBy: hit };
  return chosen;
}
