import type { NetworkSettings } from '../http/network.js';
import { searchUrl } from '../search/search-backend.js';
import type { PayloadFormat } from '../shared/types.js';
import type { BackendChoice } from '../storage/drivers.js';
import { checkHost, type HostToCheck } from './host.js';
import { lockChecks, nodeCheck, sqliteCheck, stateDirCheck } from './local.js';
import { type Check, type DoctorReport, doctorReport } from './report.js';
import { stateDatabaseCheck } from './state-db.js';

/**
 * `genser doctor` (docs/networks.md): what a run needs, checked step by step, each host as its
 * requests go. The key of each host is proved by a request that stores nothing: a body the
 * service must refuse (an envelope without products, an empty legacy array, an event without
 * its fields). The service checks the key before the body (the sandbox does; contract 7 gives
 * 401 for the key and 400 for the body), so a 401 says the key is wrong and a 400 says it
 * passed, with nothing stored; the contract has no health endpoint to ask instead.
 */

export interface DoctorSettings {
  sqlite: BackendChoice;
  stateDir: string;
  /** A state in PostgreSQL (`--state postgres://...`): checked instead of the directory. */
  stateDb?: { url: string; shown: string };
  timeoutMs: number;
  api?: { url: string; format: PayloadFormat; path?: string; key?: string };
  events?: { url: string; key?: string };
  search?: { url: string; instanceKey?: string };
}

export function hostsToCheck(s: DoctorSettings): HostToCheck[] {
  const hosts: HostToCheck[] = [];
  if (s.api) {
    const legacy = s.api.format === 'legacy';
    hosts.push({
      role: 'API',
      url: s.api.url,
      probe: s.api.key
        ? {
            path: s.api.path ?? (legacy ? '/searches/products' : '/collectors/products'),
            headers: { [legacy ? 'x-api-key' : 'apiKey']: s.api.key },
            body: legacy ? '[]' : '{}',
            keyName: 'API key',
          }
        : undefined,
    });
  }
  if (s.events)
    hosts.push({
      role: 'events',
      url: s.events.url,
      probe: s.events.key
        ? {
            path: '/actions/view/product',
            headers: { serviceKey: s.events.key },
            body: '{}',
            keyName: 'service key',
          }
        : undefined,
    });
  if (s.search) {
    const full = searchUrl(s.search.url);
    hosts.push({
      role: 'search',
      url: full.href.replace(/\/search$/, ''),
      probe: s.search.instanceKey
        ? {
            path: '/search',
            headers: {},
            body: JSON.stringify({ instanceKey: s.search.instanceKey, queryText: '' }),
            keyName: 'instance key',
          }
        : undefined,
    });
  }
  return hosts;
}

export async function runDoctor(
  s: DoctorSettings,
  net: NetworkSettings,
  deps: { now?: () => Date } = {},
): Promise<DoctorReport> {
  const checks: Check[] = [nodeCheck(), sqliteCheck(s.sqlite)];
  if (s.stateDb) checks.push(await stateDatabaseCheck(s.stateDb, net.env));
  else {
    const state = stateDirCheck(s.stateDir);
    checks.push(state);
    if (state.status === 'pass') checks.push(...lockChecks(s.stateDir, s.sqlite));
  }
  const hosts = hostsToCheck(s);
  if (hosts.length === 0)
    checks.push({
      step: 'hosts',
      status: 'fail',
      detail: 'no host configured: nothing to reach',
      hint: 'set --api-url (GENSER_API_URL), --base-url (GENSER_BASE_URL) or --url (GENSER_SEARCH_URL)',
      exitCode: 2,
    });
  for (const h of hosts) checks.push(...(await checkHost(h, net, { timeoutMs: s.timeoutMs, now: deps.now })));
  return doctorReport(checks);
}
