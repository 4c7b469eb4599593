import type { BackendChoice } from '../storage/sqlite.js';
import type { SandboxOptions } from './index.js';

/**
 * `genser sandbox`'s resolved options -> SandboxOptions (the CLI's option table owns the flags,
 * environment variables and defaults). Pure: no server is started here.
 */
export interface SandboxSettings {
  port: number;
  host: string;
  db?: string;
  apiKey?: string;
  serviceKey?: string;
  instanceKey?: string;
  country: string;
  adminEmail: string;
  maxBody: number;
  idempotencyTtl: number;
  legacyProductsPath: string;
  legacyContentsPath: string;
  legacyFiltersPath: string;
  failRate?: number;
  failStatus: 500 | 503;
  latency?: number | [number, number];
  resetRate?: number;
  rateLimit?: number;
  lostRate?: number;
  seed?: number;
  quiet?: boolean;
  sqlite?: BackendChoice;
}

export function sandboxOptionsFrom(s: SandboxSettings): SandboxOptions {
  return {
    port: s.port,
    host: s.host,
    db: s.db ?? ':memory:',
    apiKey: s.apiKey,
    serviceKey: s.serviceKey,
    instanceKey: s.instanceKey,
    country: s.country,
    adminEmail: s.adminEmail,
    maxBodyBytes: s.maxBody,
    idempotencyTtlMs: s.idempotencyTtl,
    legacyPaths: {
      products: s.legacyProductsPath,
      contents: s.legacyContentsPath,
      filters: s.legacyFiltersPath,
    },
    faults: {
      failRate: s.failRate,
      failStatus: s.failStatus,
      latencyMs: s.latency,
      resetRate: s.resetRate,
      rateLimit: s.rateLimit,
      lostRate: s.lostRate,
      seed: s.seed,
    },
    quiet: s.quiet === true,
    sqlite: s.sqlite,
  };
}
