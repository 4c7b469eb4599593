/**
 * The sandbox's defaults, owned here once: `startSandbox` fills what its caller left out from
 * them, and the CLI's option table shows and uses the same values for `genser sandbox`. Kept
 * apart from the server so the option table can read them without loading the sandbox.
 */
export const SANDBOX_DEFAULTS = {
  /** `genser sandbox --port`; an embedded sandbox (tests, `upload --sandbox`) takes a free port. */
  port: 8080,
  host: '127.0.0.1',
  country: 'KR',
  adminEmail: 'admin@example.com',
  maxBodyBytes: 10 * 1024 * 1024,
  idempotencyTtlMs: 24 * 60 * 60 * 1000,
  legacyPaths: {
    products: '/searches/products',
    contents: '/searches/contents',
    filters: '/searches/filters',
  },
  headersMs: 10_000,
  requestMs: 60_000,
} as const;
