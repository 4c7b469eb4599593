import { describe, expect, it } from 'vitest';
import { ExitCode } from '../../src/shared/errors.js';
import { postgresProblem } from '../../src/storage/postgres.js';

// The server's own error codes (SQLSTATE), as node-postgres gives them in `code`.
const serverError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('a PostgreSQL state failure in one line (exit 2)', () => {
  it('a full disk on the server (53100) is said as the SQLite state full disk is, with its fix', () => {
    const err = postgresProblem(
      'postgres://genser@db:5432/state',
      serverError('53100', 'could not extend file "base/16384/16390": No space left on device'),
    );
    expect(err.exitCode).toBe(ExitCode.usage);
    expect(err.message).toBe(
      'the disk is full: the upload state database postgres://genser@db:5432/state could not be written (53100: could not extend file "base/16384/16390": No space left on device)',
    );
    expect(err.hint).toContain("free some space on the database server's disk");
  });

  it('a refused password names PGPASSWORD and .pgpass, never a flag', () => {
    const err = postgresProblem(
      'postgres://genser@db/state',
      serverError('28P01', 'password authentication failed'),
    );
    expect(err.hint).toContain('PGPASSWORD');
  });

  it('server text reaches the terminal escaped', () => {
    const err = postgresProblem('postgres://genser@db/state', serverError('XX000', 'bad \u001b[2J thing'));
    expect(err.message).not.toContain('\u001b');
  });
});
