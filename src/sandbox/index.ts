import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Logger, streamLogger } from '../shared/logger.js';
import { packageRoot } from '../shared/paths.js';
import type { BackendChoice } from '../storage/sqlite.js';
import { timeZoneForCountry } from '../time/zones.js';
import type { AdminContext } from './admin.js';
import { DailyBatch } from './daily-batch.js';
import { SANDBOX_DEFAULTS } from './defaults.js';
import { type FaultOptions, Faults } from './faults.js';
import { type IngestOptions, IngestPool } from './ingest-pool.js';
import { SearchIndex, toIndexed } from './search-index.js';
import { createSandboxServer, type SandboxServer } from './server.js';
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

function listen(server: SandboxServer, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Keys not given are made once and kept in the database: a restart on the same --db keeps them,
 * so clients configured with them go on working. */
function keptKey(store: SandboxStore, name: string, given: string | undefined, prefix: string): string {
  if (given) return given;
  const kept = store.getMeta(name);
  if (kept) return kept;
  const made = generateKey(prefix);
  store.setMeta(name, made);
  return made;
}

type RequestCounts = { total: number; byStatus: Record<string, number> };

interface StatsSource {
  store: SandboxStore;
  url: () => string;
  country: string;
  zone: string;
  adminEmail: string;
  startedAt: Date;
  batch: DailyBatch;
  requests: RequestCounts;
}

/** What GET /_sandbox/stats answers. */
function sandboxStats(s: StatsSource): unknown {
  const counts = s.store.counts();
  let pending = 0;
  let applied = 0;
  for (const c of Object.values(counts.products)) {
    pending += c.pending;
    applied += c.applied;
  }
  const lastBatch = s.store.getMeta('lastBatchAt');
  return {
    url: s.url(),
    country: s.country,
    timeZone: s.zone,
    adminEmail: s.adminEmail,
    startedAt: s.startedAt.toISOString(),
    lastBatchAt: lastBatch ? new Date(Number(lastBatch)).toISOString() : null,
    nextBatchAt: s.batch.next().toISOString(),
    products: {
      total: pending + applied,
      pending,
      applied,
      byFormat: counts.products,
      mismatches: counts.mismatches,
    },
    events: { total: Object.values(counts.events).reduce((a, b) => a + b, 0), byType: counts.events },
    outbox: counts.outbox,
    requests: s.requests,
  };
}

/** Search sees what the last batch applied: built at the first search after a batch. */
class AppliedIndex {
  private index: SearchIndex | undefined;
  constructor(private readonly store: SandboxStore) {}
  get(): SearchIndex {
    const store = this.store;
    this.index ??= new SearchIndex(
      (function* () {
        for (const p of store.appliedProducts()) {
          const indexed = toIndexed(p.format, p.sku, p.data);
          if (indexed) yield indexed;
        }
      })(),
    );
    return this.index;
  }
  forget(): void {
    this.index = undefined;
  }
}

interface Parts {
  store: SandboxStore;
  pool: IngestPool;
  batch: DailyBatch;
  search: AppliedIndex;
  requests: RequestCounts;
  keys: { apiKey: string; serviceKey: string; instanceKey: string };
  admin: AdminContext;
  url: () => string;
}

function buildServer(options: SandboxOptions, p: Parts, log: Logger, host: string) {
  const now = options.now ?? (() => new Date());
  const faults = new Faults(options.faults ?? {}, () => now().getTime());
  const clientDir = join(packageRoot, 'dist', 'client');
  return createSandboxServer({
    host,
    store: p.store,
    faults,
    apiKey: p.keys.apiKey,
    serviceKey: p.keys.serviceKey,
    maxBodyBytes: options.maxBodyBytes ?? SANDBOX_DEFAULTS.maxBodyBytes,
    idempotencyTtlMs: options.idempotencyTtlMs ?? SANDBOX_DEFAULTS.idempotencyTtlMs,
    legacyPaths: { ...SANDBOX_DEFAULTS.legacyPaths, ...options.legacyPaths },
    now,
    appliesAt: () => p.batch.next().toISOString(),
    log,
    quiet: options.quiet ?? false,
    admin: p.admin,
    client: {
      store: p.store,
      instanceKey: p.keys.instanceKey,
      faults,
      now,
      index: () => p.search.get(),
      baseUrl: p.url,
      files: { script: join(clientDir, 'genser.js'), demo: join(clientDir, 'demo.html') },
    },
    headersTimeoutMs: options.timeouts?.headersMs ?? SANDBOX_DEFAULTS.headersMs,
    requestTimeoutMs: options.timeouts?.requestMs ?? SANDBOX_DEFAULTS.requestMs,
    onRequest: (status) => {
      p.requests.total++;
      const k = status === 0 ? 'reset' : String(status);
      p.requests.byStatus[k] = (p.requests.byStatus[k] ?? 0) + 1;
    },
    ingest: (endpoint, body, appliesAt) => p.pool.ingest(endpoint, body, appliesAt),
  });
}

/** Stops the timer, lets open requests end (forced after 2 s), then closes the pool and the store. */
function closer(server: SandboxServer, p: Parts): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= new Promise<void>((resolve) => {
      p.batch.stop();
      const force = setTimeout(() => server.closeAllConnections(), 2000);
      force.unref();
      server.close(() => {
        clearTimeout(force);
        void server
          .idle()
          .then(() => closeStorage(p))
          .then(resolve);
      });
      server.closeIdleConnections();
    });
    return closing;
  };
}

async function closeStorage(p: Parts): Promise<void> {
  p.store.close();
  await p.pool.close();
}

export async function startSandbox(options: SandboxOptions = {}): Promise<RunningSandbox> {
  const now = options.now ?? (() => new Date());
  const country = options.country ?? SANDBOX_DEFAULTS.country;
  const zone = timeZoneForCountry(country);
  const adminEmail = options.adminEmail ?? SANDBOX_DEFAULTS.adminEmail;
  const log = options.log ?? streamLogger({ quiet: options.quiet }, process.stderr);
  const store = new SandboxStore(options.db ?? ':memory:', { backend: options.sqlite });
  const keys = {
    apiKey: keptKey(store, 'apiKey', options.apiKey, 'sbx_api'),
    serviceKey: keptKey(store, 'serviceKey', options.serviceKey, 'sbx_svc'),
    instanceKey: keptKey(store, 'instanceKey', options.instanceKey, 'sbx_ins'),
  };
  const startedAt = now();
  const requests: RequestCounts = { total: 0, byStatus: {} };
  let url = '';
  const search = new AppliedIndex(store);
  const batch = new DailyBatch({
    store,
    zone,
    adminEmail,
    idempotencyTtlMs: options.idempotencyTtlMs ?? SANDBOX_DEFAULTS.idempotencyTtlMs,
    now,
    log,
    quiet: options.quiet ?? false,
    onBatch: () => search.forget(),
  });
  const runBatch = () => batch.run();
  const stats = () =>
    sandboxStats({ store, url: () => url, country, zone, adminEmail, startedAt, batch, requests });
  const admin: AdminContext = {
    store,
    stats,
    runBatch,
    reset: () => {
      store.reset();
      search.forget();
      store.setMeta('createdAt', String(now().getTime()));
      requests.total = 0;
      requests.byStatus = {};
    },
  };
  batch.catchUp(startedAt);

  const parts: Parts = {
    store,
    pool: new IngestPool(options.ingest),
    batch,
    search,
    requests,
    keys,
    admin,
    url: () => url,
  };
  const host = options.host ?? SANDBOX_DEFAULTS.host;
  const server = buildServer(options, parts, log, host);
  try {
    await listen(server, options.port ?? 0, host);
  } catch (err) {
    await closeStorage(parts);
    throw err;
  }
  const address = server.address() as AddressInfo;
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  url = `http://${shown}:${address.port}`;
  batch.schedule();
  return { url, ...keys, runBatch: async () => runBatch(), stats, close: closer(server, parts) };
}
