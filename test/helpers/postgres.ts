import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chownSync, cpSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * A throwaway PostgreSQL server for the tests that run the upload state on it (docs/nightly.md,
 * "State in PostgreSQL"): Debian's `postgresql` (installed by `.ci/run`), a cluster made by
 * `initdb` once per machine into a template that each test file copies, started with `postgres`
 * on a free port of 127.0.0.1 and stopped after. PostgreSQL refuses to run as root: as root, it
 * runs as `nobody`. Where it cannot be found or started, `pgSkip` says why in one line and the
 * tests that need it are skipped.
 */
export interface TestPostgres {
  /** A new empty database: its URL (user `genser`, no password: the cluster trusts local users). */
  database(): Promise<string>;
  stop(): Promise<void>;
}

const NOBODY = 65534;

/** The directory of initdb and postgres: on PATH, else Debian's /usr/lib/postgresql/<version>/bin. */
export function postgresBin(): string | undefined {
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return join(which.stdout.trim(), '..');
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0], 'bin') : undefined;
}

const asRoot = process.getuid?.() === 0;

/** Runs `bin/args` as this user, or as nobody when this is root. */
function command(bin: string, args: string[]): [string, string[]] {
  if (!asRoot) return [bin, args];
  return ['setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', bin, ...args]];
}

function own(dir: string): void {
  if (!asRoot) return;
  chownSync(dir, NOBODY, NOBODY);
  for (const f of readdirSync(dir, { recursive: true }) as string[]) chownSync(join(dir, f), NOBODY, NOBODY);
}

/** The initdb'ed template, made once per machine and user (renamed into place: racing files agree). */
function template(bin: string): string {
  const path = join(tmpdir(), `genser-pg-template-${bin.replace(/\W+/g, '_')}-${process.getuid?.() ?? 0}`);
  if (existsSync(join(path, 'PG_VERSION'))) return path;
  const temp = mkdtempSync(join(tmpdir(), 'genser-pg-init-'));
  own(temp);
  const [cmd, args] = command(join(bin, 'initdb'), [
    '-D',
    join(temp, 'data'),
    '-A',
    'trust',
    '-U',
    'genser',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  const run = spawnSync(cmd, args, { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0)
    throw new Error(`initdb failed: ${(run.stderr || run.stdout || String(run.error)).trim()}`);
  try {
    renameSync(join(temp, 'data'), path);
  } catch {
    // Made by another test file meanwhile.
  }
  rmSync(temp, { recursive: true, force: true });
  return path;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function ready(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const until = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`postgres exited: ${log().trim().split('\n').slice(-3).join(' / ')}`);
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Starts a server for this test file, or says in one line why it cannot (then: undefined). */
export async function startPostgres(): Promise<TestPostgres | undefined> {
  const bin = postgresBin();
  if (!bin) {
    process.stderr.write(
      'skipped: PostgreSQL state tests: no initdb/postgres on this machine (apt-get install postgresql)\n',
    );
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'genser-pg-'));
  try {
    cpSync(template(bin), join(dir, 'data'), { recursive: true });
    own(dir);
    const port = await freePort();
    const [cmd, args] = command(join(bin, 'postgres'), [
      '-D',
      join(dir, 'data'),
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=60',
    ]); // prettier-ignore
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr?.on('data', (c) => {
      log += String(c);
    });
    const base = `postgres://genser@127.0.0.1:${port}`;
    await ready(`${base}/postgres`, child, () => log);
    let n = 0;
    return {
      async database() {
        const name = `t${process.pid}_${++n}`;
        const admin = new pg.Client({ connectionString: `${base}/postgres` });
        await admin.connect();
        await admin.query(`CREATE DATABASE ${name}`);
        await admin.end();
        return `${base}/${name}`;
      },
      async stop() {
        if (child.exitCode === null) {
          const gone = new Promise((r) => child.once('exit', r));
          child.kill('SIGINT');
          await gone;
        }
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    process.stderr.write(
      `skipped: PostgreSQL state tests: the server could not start: ${String((err as Error).message ?? err).split('\n')[0]}\n`,
    );
    return undefined;
  }
}

/**
 * The two places an upload state can be, for `describe.each`: a new directory (`dir()`), or a
 * new database of `server` (skipped, said once by startPostgres, where there is none). Each
 * entry: [name, a new place (a value for --state or GENSER_STATE_DIR), skip].
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
