import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Logger, streamLogger } from '../shared/logger.js';
import { packageRoot } from '../shared/paths.js';
import type { BackendChoice } from '../storage/sqlite.js';
import { formatLocal, nextDailyBatch, timeZoneForCountry } from '../time/zones.js';
import type { AdminContext } from './admin.js';
import { SANDBOX_DEFAULTS } from './defaults.js';
import { type FaultOptions, Faults } from './faults.js';
import { type IngestOptions, IngestPool } from './ingest-pool.js';
import { SearchIndex, toIndexed } from './search-index.js';
import { createSandboxServer } from './server.js';
import { SandboxStore } from './store.js';

/**
 * `genser sandbox`: one HTTP server that plays both hosts of the service contract (event
 * collection and product ingestion), strictly, with SQLite storage. Embedded by
 * `genser upload --sandbox` and by the tests; run on its own by `genser sandbox`.
 */
export interface SandboxOptions {
  port?: number;
  host?: string;
  /** SQLite file; default ':memory:'. */
  db?: string;
  /** SQLite driver (src/storage): default 'auto', node:sqlite where Node has it, else better-sqlite3. */
  sqlite?: BackendChoice;
  /** Generated (random) when absent. */
  apiKey?: string;
  serviceKey?: string;
  /** Key of the search instance (contract 4.4 `instanceKey`, `instance.key`); generated when absent. */
  instanceKey?: string;
  /** ISO country code (or IANA zone) whose 00:15 runs the daily batch; default KR. */
  country?: string;
  adminEmail?: string;
  maxBodyBytes?: number;
  idempotencyTtlMs?: number;
  legacyPaths?: { products?: string; contents?: string; filters?: string };
  faults?: FaultOptions;
  /** Injected clock for tests. */
  now?: () => Date;
  log?: Logger;
  quiet?: boolean;
  /** Slow clients: time allowed for the request headers, and for the whole request. */
  timeouts?: { headersMs?: number; requestMs?: number };
  /** Where large product bodies are decoded, parsed and validated (src/sandbox/ingest-pool.ts). */
  ingest?: IngestOptions;
}

export interface RunningSandbox {
  url: string;
  apiKey: string;
  serviceKey: string;
  instanceKey: string;
  /** The 00:15 daily batch, now. */
  runBatch(): Promise<{ applied: number }>;
  /** Same as GET /_sandbox/stats. */
  stats(): unknown;
  /** Closes the server and the database. */
  close(): Promise<void>;
}

export function generateKey(prefix: string): string {
  return `${prefix}_${randomBytes(16).toString('hex')}`;
}

function listen(server: ReturnType<typeof createSandboxServer>, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const now = options.now ?? (() => new Date());
  const country = options.country ?? SANDBOX_DEFAULTS.country;
  const zone = timeZoneForCountry(country);
  const adminEmail = options.adminEmail ?? SANDBOX_DEFAULTS.adminEmail;
  const log = options.log ?? streamLogger({ quiet: options.quiet }, process.stderr);
  const quiet = options.quiet ?? false;
  const store = new SandboxStore(options.db ?? ':memory:', { backend: options.sqlite });
  // Keys not given are made once and kept in the database: a restart on the same --db keeps them,
  // so clients configured with them go on working.
  const keptKey = (name: string, given: string | undefined, prefix: string): string => {
    if (given) return given;
    const kept = store.getMeta(name);
    if (kept) return kept;
    const made = generateKey(prefix);
    store.setMeta(name, made);
    return made;
  };
  const apiKey = keptKey('apiKey', options.apiKey, 'sbx_api');
  const serviceKey = keptKey('serviceKey', options.serviceKey, 'sbx_svc');
  const instanceKey = keptKey('instanceKey', options.instanceKey, 'sbx_ins');
  const startedAt = now();
  const requests = { total: 0, byStatus: {} as Record<string, number> };
  let url = '';
  let timer: NodeJS.Timeout | undefined;
  // Search sees what the last batch applied: built at the first search after a batch.
  let searchIndex: SearchIndex | undefined;
  const indexOfApplied = () => {
    searchIndex ??= new SearchIndex(
      (function* () {
        for (const p of store.appliedProducts()) {
          const indexed = toIndexed(p.format, p.sku, p.data);
          if (indexed) yield indexed;
        }
      })(),
    );
    return searchIndex;
  };

  // Asked on every product request: computed once per day, not per request (Intl is slow).
  let cached = { from: 0, next: 0 };
  const nextBatch = (): Date => {
    const t = now().getTime();
    if (t < cached.from || t >= cached.next)
      cached = { from: t, next: nextDailyBatch(new Date(t), zone).getTime() };
    return new Date(cached.next);
  };

  function runBatch(): { applied: number } {
    const at = now();
    searchIndex = undefined;
    const applied = store.runBatch(at.getTime(), adminEmail, (n) => ({
      subject: `[genser sandbox] Data preprocessing finished: ${n} product${n === 1 ? '' : 's'} applied`,
      body:
        `The daily batch ran at ${formatLocal(at, zone)} (${zone}).\n` +
        `${n} product${n === 1 ? ' is' : 's are'} now visible in search.\n` +
        `Next batch: ${formatLocal(nextDailyBatch(at, zone), zone)} (${zone}).\n`,
    }));
    store.expireReplies(at.getTime() - (options.idempotencyTtlMs ?? SANDBOX_DEFAULTS.idempotencyTtlMs));
    if (!quiet)
      log.info(`daily batch: ${applied} product${applied === 1 ? '' : 's'} applied; notice to ${adminEmail}`);
    return { applied };
  }

  // The last 00:15 the timer fired for: the next one is computed after it, so a clock that stands
  // still (tests) or runs slightly behind the timer never runs the same batch twice.
  let firedFor = 0;
  function schedule(): void {
    const from = Math.max(now().getTime(), firedFor);
    const target = nextDailyBatch(new Date(from), zone).getTime();
    const delay = Math.max(0, target - now().getTime());
    timer = setTimeout(
      () => {
        firedFor = target;
        try {
          runBatch();
        } catch (err) {
          log.error(`daily batch failed: ${(err as Error).message}`);
        }
        schedule();
      },
      // setTimeout holds at most ~24.8 days; a daily batch is always closer.
      Math.min(delay + 50, 2 ** 31 - 1),
    );
    timer.unref();
  }

  function stats(): unknown {
    const counts = store.counts();
    let pending = 0;
    let applied = 0;
    for (const c of Object.values(counts.products)) {
      pending += c.pending;
      applied += c.applied;
    }
    const lastBatch = store.getMeta('lastBatchAt');
    return {
      url,
      country,
      timeZone: zone,
      adminEmail,
      startedAt: startedAt.toISOString(),
      lastBatchAt: lastBatch ? new Date(Number(lastBatch)).toISOString() : null,
      nextBatchAt: nextBatch().toISOString(),
      products: {
        total: pending + applied,
        pending,
        applied,
        byFormat: counts.products,
        mismatches: counts.mismatches,
      },
      events: { total: Object.values(counts.events).reduce((a, b) => a + b, 0), byType: counts.events },
      outbox: counts.outbox,
      requests,
    };
  }

  const admin: AdminContext = {
    store,
    stats,
    runBatch,
    reset: () => {
      store.reset();
      searchIndex = undefined;
      store.setMeta('createdAt', String(now().getTime()));
      requests.total = 0;
      requests.byStatus = {};
    },
  };

  // A file database that slept through a 00:15 catches up at once.
  if (!store.getMeta('createdAt')) store.setMeta('createdAt', String(startedAt.getTime()));
  const since = Number(store.getMeta('lastBatchAt') ?? store.getMeta('createdAt'));
  if (nextDailyBatch(new Date(since), zone).getTime() <= startedAt.getTime() && store.pendingCount() > 0)
    runBatch();

  const pool = new IngestPool(options.ingest);
  const faults = new Faults(options.faults ?? {}, () => now().getTime());
  const clientDir = join(packageRoot, 'dist', 'client');
  const host = options.host ?? SANDBOX_DEFAULTS.host;
  const server = createSandboxServer({
    host,
    store,
    faults,
    apiKey,
    serviceKey,
    maxBodyBytes: options.maxBodyBytes ?? SANDBOX_DEFAULTS.maxBodyBytes,
    idempotencyTtlMs: options.idempotencyTtlMs ?? SANDBOX_DEFAULTS.idempotencyTtlMs,
    legacyPaths: { ...SANDBOX_DEFAULTS.legacyPaths, ...options.legacyPaths },
    now,
    appliesAt: () => nextBatch().toISOString(),
    log,
    quiet,
    admin,
    client: {
      store,
      instanceKey,
      faults,
      now,
      index: indexOfApplied,
      baseUrl: () => url,
      files: { script: join(clientDir, 'genser.js'), demo: join(clientDir, 'demo.html') },
    },
    headersTimeoutMs: options.timeouts?.headersMs ?? SANDBOX_DEFAULTS.headersMs,
    requestTimeoutMs: options.timeouts?.requestMs ?? SANDBOX_DEFAULTS.requestMs,
    onRequest: (status) => {
      requests.total++;
      const k = status === 0 ? 'reset' : String(status);
      requests.byStatus[k] = (requests.byStatus[k] ?? 0) + 1;
    },
    ingest: (endpoint, body, appliesAt) => pool.ingest(endpoint, body, appliesAt),
  });
  try {
    await listen(server, options.port ?? 0, host);
  } catch (err) {
    store.close();
    await pool.close();
    throw err;
  }
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  url = `http://${shown}:${address.port}`;
  schedule();

  let closing: Promise<void> | undefined;
  return {
    url,
    apiKey,
    serviceKey,
    instanceKey,
    runBatch: async () => runBatch(),
    stats,
    close: () => {
      closing ??= new Promise<void>((resolve) => {
        if (timer) clearTimeout(timer);
        const force = setTimeout(() => server.closeAllConnections(), 2000);
        force.unref();
        server.close(() => {
          clearTimeout(force);
          store.close();
          void pool.close().then(resolve);
        });
        server.closeIdleConnections();
      });
      return closing;
    },
  };
}
