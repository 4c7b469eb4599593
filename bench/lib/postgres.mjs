import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

/**
 * A throwaway PostgreSQL server (the upload state's tests and the bench's nightly case): Debian's
 * `postgresql`, a cluster made by `initdb` once per machine into a template that each start
 * copies, started with `postgres` on a free port of 127.0.0.1 (durability off: it is thrown away)
 * and stopped after. PostgreSQL refuses to run as root: as root, it runs as `nobody`.
 */
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

/** The directory of initdb and postgres: on PATH, else Debian's /usr/lib/postgresql/<version>/bin. */
export function postgresBin() {
  const which = spawnSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' });
  if (which.status === 0 && which.stdout.trim()) return join(which.stdout.trim(), '..');
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions.length > 0 ? join(root, versions[0], 'bin') : undefined;
}

/** `bin` with `args`, as this user, or as nobody when this is root. */
function command(bin, args) {
  if (!asRoot) return [bin, args];
  return ['setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', bin, ...args]];
}

function own(dir) {
  if (!asRoot) return;
  chownSync(dir, NOBODY, NOBODY);
  for (const f of readdirSync(dir, { recursive: true })) chownSync(join(dir, f), NOBODY, NOBODY);
}

/** The initdb'ed template, made once per machine and user (renamed into place: racing starts agree). */
function template(bin) {
  const path = join(tmpdir(), `genser-pg-template-${bin.replace(/\W+/g, '_')}-${process.getuid?.() ?? 0}`);
  if (existsSync(join(path, 'PG_VERSION'))) return path;
  const temp = mkdtempSync(join(tmpdir(), 'genser-pg-init-'));
  own(temp);
  const initdb = ['-D', join(temp, 'data'), '-A', 'trust', '-U', 'genser', '-E', 'UTF8', '--no-sync'];
  const [cmd, args] = command(join(bin, 'initdb'), initdb);
  const run = spawnSync(cmd, args, { encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0)
    throw new Error(`initdb failed: ${(run.stderr || run.stdout || String(run.error)).trim()}`);
  try {
    renameSync(join(temp, 'data'), path);
  } catch {
    // Made by another start meanwhile.
  }
  rmSync(temp, { recursive: true, force: true });
  return path;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

async function ready(url, child, log) {
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

/** Runs one statement as the cluster's superuser. */
async function admin(base, sql) {
  const client = new pg.Client({ connectionString: `${base}/postgres` });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Starts a server; throws (with why) when there is no PostgreSQL here or it cannot start. */
export async function startCluster() {
  const bin = postgresBin();
  if (!bin) throw new Error('no initdb/postgres on this machine (apt-get install postgresql)');
  const dir = mkdtempSync(join(tmpdir(), 'genser-pg-'));
  try {
    cpSync(template(bin), join(dir, 'data'), { recursive: true });
    // Node 22's cpSync makes directories 0755 whatever the source's mode; postgres wants 0700.
    chmodSync(join(dir, 'data'), 0o700);
    own(dir);
    const port = await freePort();
    const settings = [
      'listen_addresses=127.0.0.1',
      'fsync=off',
      'synchronous_commit=off',
      'full_page_writes=off',
    ];
    const [cmd, args] = command(join(bin, 'postgres'), [
      ...['-D', join(dir, 'data'), '-p', String(port), '-k', dir],
      ...settings.flatMap((s) => ['-c', s]),
    ]);
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr.on('data', (c) => {
      log += String(c);
    });
    const base = `postgres://genser@127.0.0.1:${port}`;
    await ready(`${base}/postgres`, child, () => log);
    let n = 0;
    return {
      /** A new database (a copy of `template` when given): its URL. */
      async database(template) {
        const name = `t${process.pid}_${++n}`;
        await admin(base, `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
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
    throw err;
  }
}
