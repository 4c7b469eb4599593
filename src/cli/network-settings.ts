import { loadCaFile } from '../http/ca-file.js';
import type { NetworkSettings } from '../http/network.js';
import { parseProxyUrl } from '../http/proxy.js';
import { registerSecret } from '../shared/secrets.js';
import type { Resolved } from './settings.js';

/** The variables a proxy may come from (src/http/proxy.ts reads them as curl does). */
const PROXY_VARIABLES = ['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY', 'all_proxy', 'ALL_PROXY'];

/**
 * How the requests of a command go out: `--proxy` (checked by its parser), the proxy variables
 * of the environment, `--ca-file` loaded once, and `--compress`. A password in any proxy URL is registered as a
 * secret before anything can print it.
 */
export function networkSettings(resolved: Resolved, env: NodeJS.ProcessEnv): NetworkSettings {
  for (const name of PROXY_VARIABLES) {
    const value = env[name]?.trim();
    if (!value) continue;
    try {
      const url = parseProxyUrl(value, name);
      if (url.password) {
        registerSecret(url.password);
        registerSecret(decodeURIComponent(url.password));
      }
    } catch {
      // Refused (with its name) only when a request would use it: see proxyFor.
    }
  }
  const s = resolved.settings as { proxy?: string; caFile?: string; compress?: 'none' | 'gzip' };
  const net: NetworkSettings = { env, compress: s.compress ?? 'none' };
  if (s.proxy !== undefined)
    net.proxy = { url: new URL(s.proxy), from: resolved.origins.proxy?.label ?? '--proxy' };
  if (s.caFile !== undefined) net.ca = loadCaFile(s.caFile, resolved.origins.caFile?.label ?? '--ca-file');
  return net;
}
