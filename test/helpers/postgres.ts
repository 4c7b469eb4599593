import { type Cluster, postgresBin, startCluster } from '../../bench/lib/postgres.mjs';

/**
 * A throwaway PostgreSQL server for the tests that run the upload state on it (docs/nightly.md,
 * "State in PostgreSQL"; the server itself: bench/lib/postgres.mjs). Where PostgreSQL cannot be
 * found or started, this says why in one line and gives undefined: the tests that need it are
 * skipped (`.ci/run` installs it, so CI never skips them).
 */
export type TestPostgres = Cluster;

export async function startPostgres(): Promise<TestPostgres | undefined> {
  if (postgresBin() === undefined) {
    process.stderr.write('skipped: PostgreSQL state tests: no initdb/postgres on this machine\n');
    return undefined;
  }
  return await startCluster();
}

/**
 * The two places an upload state can be, for `describe.each`: a new directory (`dir()`), or a
 * new database of `server` (skipped where there is none). Each entry: [name, a new place (a value
 * for --state or GENSER_STATE_DIR), skip].
 */
export function stateBackends(
  server: TestPostgres | undefined,
  dir: () => string,
): [string, () => Promise<string>, boolean][] {
  return [
    ['sqlite', async () => dir(), false],
    ['postgres', () => server!.database(), server === undefined],
  ];
}
