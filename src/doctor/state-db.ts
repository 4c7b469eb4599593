import { ExitError } from '../shared/errors.js';
import { connectPostgres } from '../storage/postgres.js';
import { PG_SCHEMA_VERSION, versionOf } from '../upload/state/pg-schema.js';
import type { Check } from './report.js';

/**
 * The upload state's database (docs/nightly.md, "State in PostgreSQL"): reached with the run's
 * credentials, and its schema one this genser can use. Read only: nothing is made or migrated.
 */
export async function stateDatabaseCheck(
  db: { url: string; shown: string },
  env: NodeJS.ProcessEnv,
): Promise<Check> {
  try {
    const client = await connectPostgres(db.url, db.shown, env);
    try {
      const version = await versionOf(client);
      if (version > PG_SCHEMA_VERSION)
        return {
          step: 'state',
          status: 'fail',
          detail: `${db.shown} was written by a newer genser (schema ${version}; this genser knows up to ${PG_SCHEMA_VERSION})`,
          hint: 'upgrade genser',
          exitCode: 2,
        };
      const what =
        version === 0 ? 'no genser state yet (the first upload makes its tables)' : `schema ${version}`;
      return { step: 'state', status: 'pass', detail: `${db.shown} answers: ${what}` };
    } finally {
      await client.end().catch(() => {});
    }
  } catch (err) {
    const e = err instanceof ExitError ? err : undefined;
    return {
      step: 'state',
      status: 'fail',
      detail: e?.message ?? String(err),
      ...(e?.hint ? { hint: e.hint } : {}),
      exitCode: 2,
    };
  }
}
