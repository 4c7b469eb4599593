import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import Papa from 'papaparse';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type Io, main } from '../../src/cli/main.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { ExitError } from '../../src/shared/errors.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { openDatabase } from '../../src/storage/sqlite.js';
import { LOCK_EXPIRY_MS } from '../../src/upload/state/lock.js';
import { KEEP_RUNS } from '../../src/upload/state/runs.js';
import { SCHEMA_VERSION } from '../../src/upload/state/schema.js';
import { SqliteState } from '../../src/upload/state/sqlite-state.js';
import {
  canonicalApiUrl,
  defaultStateDir,
  keyFingerprint,
  type StateTarget,
  stateFileName,
  stateSalt,
} from '../../src/upload/state/target.js';
import { GUARDS_OFF } from '../helpers/guards-off.js';
import { startPostgres, stateBackends } from '../helpers/postgres.js';
import { json, productsOf, type ScriptedServer, scriptedServer } from './servers.js';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
const dir = mkdtempSync(join(tmpdir(), 'genser-state-'));
let n = 0;
const fresh = (name: string) => join(dir, `${name}-${++n}`);
const pgServer = await startPostgres();
afterAll(() => pgServer?.stop());
const backends = stateBackends(pgServer, () => fresh('state'));

const fixture = Papa.parse<string[]>(readFileSync(join(root, 'fixtures', 'catalog.csv'), 'utf8'), {
  skipEmptyLines: true,
}).data;
const [header, ...sample] = fixture;
const PRICE = header.indexOf('price');

/** The fixture catalog (25 products), with `reprice` rows (1-based) given another price. */
function catalog(reprice: Record<number, string> = {}, count = sample.length): string {
  const rows = sample.slice(0, count).map((r, i) => {
    const row = [...r];
    if (reprice[i + 1] !== undefined) row[PRICE] = reprice[i + 1];
    return row;
  });
  const file = `${fresh('catalog')}.csv`;
  writeFileSync(file, `${Papa.unparse([header, ...rows], { newline: '\n' })}\n`);
  return file;
}

async function genser(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stderr: string; stdout: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c) => {
    out += String(c);
  });
  stderr.on('data', (c) => {
    err += String(c);
  });
  const ctx: Io = { stdout, stderr, env: { NO_COLOR: '1', ...env }, exitCode: 0 };
  const code = await main(['node', 'genser', ...args], ctx);
  return { code, stdout: out, stderr: err };
}

const target = (over: Partial<StateTarget> = {}): StateTarget => ({
  apiUrl: 'https://api.example.com',
  format: 'standard',
  keyFingerprint: 'f'.repeat(64),
  ...over,
});

let sandbox: RunningSandbox | undefined;
let server: ScriptedServer | undefined;
afterEach(async () => {
  await sandbox?.close();
  await server?.close();
  sandbox = undefined;
  server = undefined;
  clearSecrets();
});

describe('state target', () => {
  it('canonical url, default directory, one file per url + format + key, the key never stored', () => {
    expect(canonicalApiUrl('HTTPS://API.Example.com:443/v1//')).toBe('https://api.example.com/v1');
    expect(canonicalApiUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080');
    // One machine's loopback under its three names is one target (one state, one lock).
    expect(canonicalApiUrl('http://localhost:8080/')).toBe('http://127.0.0.1:8080');
    expect(canonicalApiUrl('http://[::1]:8080')).toBe('http://127.0.0.1:8080');
    expect(defaultStateDir({ XDG_STATE_HOME: '/x/state' }, '/home/u')).toBe('/x/state/genser');
    expect(defaultStateDir({ XDG_STATE_HOME: 'relative' }, '/home/u')).toBe('/home/u/.local/state/genser');
    expect(defaultStateDir({}, '/home/u')).toBe('/home/u/.local/state/genser');

    const d = fresh('salt');
    mkdirSync(d);
    const salt = stateSalt(d);
    expect(stateSalt(d).equals(salt)).toBe(true);
    const fp = keyFingerprint('secret-key-123', salt);
    expect(fp).toMatch(/^[0-9a-f]{64}$/);
    expect(fp).not.toContain('secret');
    expect(keyFingerprint('secret-key-123', Buffer.alloc(32))).not.toBe(fp);
    const a = stateFileName(target({ keyFingerprint: fp }));
    expect(a).toMatch(/^api\.example\.com-standard-[0-9a-f]{16}\.sqlite$/);
    expect(stateFileName(target({ keyFingerprint: keyFingerprint('other', salt) }))).not.toBe(a);
    expect(stateFileName(target({ format: 'legacy', keyFingerprint: fp }))).not.toBe(a);
  });
});

describe('state database', () => {
  it('refuses a file from a newer genser (exit 2) and leaves it unchanged', async () => {
    const d = fresh('newer');
    mkdirSync(d);
    await (await SqliteState.open(d, target())).close();
    const file = join(d, stateFileName(target()));
    const db = openDatabase(file);
    db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION + 1));
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    db.close();
    const before = readFileSync(file);
    let err: unknown;
    try {
      await SqliteState.open(d, target());
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExitError);
    expect((err as ExitError).exitCode).toBe(2);
    expect((err as ExitError).message).toContain('written by a newer genser');
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it('migrates a version 1 file (payloads in the SKU rows) to version 2, keeping every payload', async () => {
    const d = fresh('v1');
    mkdirSync(d);
    await (await SqliteState.open(d, target())).close();
    const file = join(d, stateFileName(target()));
    // Back to version 1's layout, with three accepted products in it.
    const db = openDatabase(file);
    db.exec(`DROP TABLE accepted; DROP TABLE packs; DROP TABLE other_shards; DROP TABLE lock; DROP TABLE owed;
      DROP TABLE feed_validators; DROP TABLE last_complete; DROP TABLE missing_runs;
      ALTER TABLE runs DROP COLUMN unconfirmed; ALTER TABLE runs DROP COLUMN not_sent;
      CREATE TABLE lock (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER NOT NULL, host TEXT NOT NULL, started TEXT NOT NULL);
      CREATE TABLE retry (run_id TEXT NOT NULL, seq INTEGER NOT NULL, file TEXT NOT NULL, row INTEGER NOT NULL,
        line INTEGER NOT NULL, sku TEXT, payload BLOB NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
      INSERT INTO runs (id, started, pid, feed) VALUES ('0ld0ld00', '2026-11-23T00:00:00Z', 1, 'a.csv'), ('1a571a57', '2026-11-24T00:00:00Z', 1, 'a.csv');
      INSERT INTO retry VALUES ('0ld0ld00', 1, 'a.csv', 3, 4, 'A-1', x'7b7d'), ('1a571a57', 1, 'a.csv', 2, 3, 'B-2', x'7b7d');
      CREATE TABLE products (sku TEXT PRIMARY KEY, hash TEXT NOT NULL, accepted_at TEXT NOT NULL, payload BLOB NOT NULL) WITHOUT ROWID;
      UPDATE meta SET value = '1' WHERE key = 'schema_version';`);
    const payloads = {
      'B-2': '{"sku":"B-2"}',
      'A-1': '{"sku":"A-1","name":"큰 것"}',
      'C-3': '{"sku":"C-3"}',
    };
    for (const [sku, p] of Object.entries(payloads))
      db.prepare('INSERT INTO products VALUES (?, ?, ?, ?)').run(
        sku,
        `h-${sku}`,
        '2026-11-24T00:00:00Z',
        Buffer.from(p),
      );
    db.close();

    const state = await SqliteState.open(d, target());
    try {
      expect((await state.owedRows()).map((r) => [r.sku, r.runId, r.row])).toEqual([['B-2', '1a571a57', 2]]);
      expect(await state.knownCount()).toBe(3);
      expect(Object.fromEntries(await state.acceptedHashes())).toEqual({
        'A-1': 'h-A-1',
        'B-2': 'h-B-2',
        'C-3': 'h-C-3',
      });
      for (const [sku, p] of Object.entries(payloads))
        expect(Buffer.from((await state.acceptedPayloads([sku])).get(sku)!).toString()).toBe(p);
      // A known SKU's payload is replaced in place; a new SKU gets its own.
      await state.accepted(
        [
          { sku: 'B-2', hash: 'h2' },
          { sku: 'D-4', hash: 'h4' },
        ],
        [Buffer.from('{"sku":"B-2","v":2}'), Buffer.from('{"sku":"D-4"}')],
      );
      expect(Buffer.from((await state.acceptedPayloads(['B-2'])).get('B-2')!).toString()).toBe(
        '{"sku":"B-2","v":2}',
      );
      expect(Buffer.from((await state.acceptedPayloads(['D-4'])).get('D-4')!).toString()).toBe(
        '{"sku":"D-4"}',
      );
      expect(Buffer.from((await state.acceptedPayloads(['A-1'])).get('A-1')!).toString()).toBe(
        payloads['A-1'],
      );
      expect(await state.knownCount()).toBe(4);
      expect(await state.acceptedHash('B-2')).toBe('h2');
      // Migrated into one pack; the two accepted since in another.
      expect(Number(state.db.prepare<{ n: number }>('SELECT count(*) AS n FROM packs').get()?.n)).toBe(2);
      expect((await collect(state.absent((sku) => sku !== 'C-3'))).map((g) => g.sku)).toEqual(['C-3']);
      // The rows the last run kept for --retry-failed are owed (B-2's paid since, by its accept above).
      expect(await state.owedRows()).toEqual([]);
      // A new state file is made with 4 KiB pages (packs fill their overflow pages); this one was made so too.
      expect(state.db.pragma('page_size')).toBe(4096);
    } finally {
      await state.close();
    }
  });

  it('refuses a file that is not SQLite with exit 2 and a hint', async () => {
    const d = fresh('garbage');
    mkdirSync(d);
    writeFileSync(join(d, stateFileName(target())), 'not a database at all, just text'.repeat(200));
    let err: unknown;
    try {
      await SqliteState.open(d, target());
    } catch (e) {
      err = e;
    }
    expect((err as ExitError).exitCode).toBe(2);
    expect((err as ExitError).message).toContain('it is not an SQLite database');
    expect((err as ExitError).hint).toMatch(/^move \S+\.sqlite away and the next run starts a new state/);
  });

  it('history keeps the last 100 runs; a run never finished shows no exit code', async () => {
    const d = fresh('history');
    mkdirSync(d);
    const state = await SqliteState.open(d, target());
    const ids: string[] = [];
    for (let i = 0; i < 105; i++) ids.push(await state.startRun(`feed-${i}.csv`));
    await state.finishRun(ids[104], {
      exitCode: 0,
      durationMs: 1500,
      counts: { rows: 3, sent: 3, accepted: 3, rejected: 0, failed: 0, unchanged: 0 },
    });
    const runs = await state.listRuns();
    expect(runs).toHaveLength(KEEP_RUNS);
    expect(runs[0]).toMatchObject({ id: ids[104], exitCode: 0, rows: 3, durationMs: 1500 });
    expect(runs[1].exitCode).toBeUndefined();
    expect(runs.at(-1)?.feed).toBe('feed-5.csv');
    await state.close();
    const out = await genser(['runs', '--state', d], {});
    expect(out.stdout).toContain('feed-104.csv');
    // rows .. unchanged and exit: all '-' for a run never finished; then the target.
    expect(out.stdout.split('\n')[2]).toMatch(/feed-103\.csv(\s+-){9}\s+https?:\/\/\S+ \(standard\)$/);
  });

  it('lock: a live holder stops the run with exit 5 naming pid, start and heartbeat; a dead one is taken over', async () => {
    const d = fresh('lock');
    mkdirSync(d);
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)']);
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('exit', r));
    try {
      const state = await SqliteState.open(d, target());
      const beat = new Date(Date.now() - 40_000).toISOString();
      state.db
        .prepare('INSERT INTO lock (id, pid, host, started, heartbeat) VALUES (1, ?, ?, ?, ?)')
        .run(sleeper.pid!, hostname(), '2026-11-23T01:00:00.000Z', beat);
      let err: unknown;
      try {
        await state.lock();
      } catch (e) {
        err = e;
      }
      expect((err as ExitError).exitCode).toBe(5);
      expect((err as ExitError).message).toContain(`pid ${sleeper.pid}`);
      expect((err as ExitError).message).toContain('started 2026-11-23T01:00:00.000Z');
      expect((err as ExitError).message).toMatch(/last heartbeat 4\d s ago/);
      expect((err as ExitError).hint).toContain('docs/nightly.md, "The run lock"');
      state.db.prepare('UPDATE lock SET pid = ?').run(dead.pid!);
      const stale: string[] = [];
      await state.lock(new Date(), (line) => stale.push(line));
      expect(stale).toEqual([expect.stringContaining('its process no longer runs')]);
      expect(state.db.prepare('SELECT pid FROM lock').get()?.pid).toBe(process.pid);
      await state.close();
      // Released at close.
      const again = await SqliteState.open(d, target());
      expect(again.db.prepare('SELECT count(*) AS n FROM lock').get()?.n).toBe(0);
      await again.close();
    } finally {
      sleeper.kill();
    }
  });

  it('lock of another host: stands while its heartbeat is renewed, taken over (with its age said) once it stops', async () => {
    const d = fresh('lock-host');
    mkdirSync(d);
    const state = await SqliteState.open(d, target());
    try {
      const hold = (heartbeatAgoMs: number) =>
        state.db
          .prepare(
            'INSERT OR REPLACE INTO lock (id, pid, host, started, heartbeat) VALUES (1, 4242, ?, ?, ?)',
          )
          .run(
            'pod-gone-7f9c',
            '2026-11-20T03:00:00.000Z',
            new Date(Date.now() - heartbeatAgoMs).toISOString(),
          );
      hold(60_000);
      await expect(state.lock()).rejects.toThrow(
        /pid 4242 on pod-gone-7f9c, started 2026-11-20T03:00:00.000Z; last heartbeat 60 s ago/,
      );
      hold(LOCK_EXPIRY_MS + 60_000);
      const stale: string[] = [];
      await state.lock(new Date(), (line) => stale.push(line));
      expect(stale).toEqual([
        'took over the lock of a run that stopped renewing it (pid 4242 on pod-gone-7f9c, started 2026-11-20T03:00:00.000Z; last heartbeat 6 min ago, over the 5 min a lock is kept without one)',
      ]);
      expect(state.db.prepare('SELECT host FROM lock').get()?.host).toBe(hostname());
    } finally {
      await state.close();
    }
  });
});

describe('genser upload with state (sandbox on 127.0.0.1)', () => {
  it('sends only new and changed products; unchanged ones are not sent again; --full sends all', async () => {
    sandbox = await startSandbox({ port: 0, quiet: true });
    const stateDir = fresh('cli');
    const env = { GENSER_API_URL: sandbox.url, GENSER_API_KEY: sandbox.apiKey, GENSER_STATE_DIR: stateDir };
    const file = catalog();

    const first = await genser(['upload', file], env);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain('state: 25 new, 0 changed, 0 unchanged (not sent)');
    expect(first.stderr).not.toContain(sandbox.apiKey);

    const second = await genser(['upload', file], env);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('state: 0 new, 0 changed, 25 unchanged (not sent)');
    const sku1 = sample[0][header.indexOf('sku')];
    const one = (await (
      await fetch(`${sandbox.url}/_sandbox/products/${encodeURIComponent(sku1)}`)
    ).json()) as {
      receivedCount: number;
    };
    expect(one.receivedCount).toBe(1);

    const changed = await genser(['upload', catalog({ 3: '12345' })], env);
    expect(changed.stderr).toContain('state: 0 new, 1 changed, 24 unchanged (not sent)');

    const full = await genser(['upload', file, '--full', '--json'], env);
    expect(full.code).toBe(0);
    const report = JSON.parse(full.stdout) as { summary: { accepted: number; unchanged: number } };
    expect(report.summary.accepted).toBe(25);
    expect(report.summary.unchanged).toBe(0);
    expect(full.stderr).not.toContain('state:');
    expect(readdirSync(stateDir).filter((f) => f.endsWith('.sqlite'))).toHaveLength(1);

    // The history: four runs, newest first, each with its counts and exit code.
    const runs = await genser(['runs'], env);
    expect(runs.code).toBe(0);
    const lines = runs.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^id\s+start\s+duration\s+feed\s+rows\s+sent\s+accepted\s+rejected\s+failed\s+unconfirmed\s+not sent\s+unchanged\s+exit\s+target$/,
    );
    expect(lines).toHaveLength(5);
    const targetText = `${sandbox.url} (standard)`;
    expect(lines[1]).toMatch(/^[0-9a-f]{8}\s.*\s25\s+25\s+25\s+0\s+0\s+0\s+0\s+0\s+0\s+\S+ \(standard\)$/);
    expect(lines[1].endsWith(targetText)).toBe(true);
    expect(lines[3]).toMatch(/\s25\s+0\s+0\s+0\s+0\s+0\s+0\s+25\s+0\s+\S+ \(standard\)$/);
    const id = lines[1].split(/\s+/)[0];
    const shown = await genser(['runs', 'show', id, '--json'], env);
    expect(JSON.parse(shown.stdout)).toEqual(report);
    const human = await genser(['runs', 'show', id], env);
    expect(human.stdout).toContain(`run ${id}: ${sandbox.url}`);
    expect(human.stdout).toContain('rows 25, sent 25, accepted 25');
    const none = await genser(['runs', 'show', 'ffffffff'], env);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('no run ffffffff in');
    // The key never lands in the state directory.
    for (const f of readdirSync(stateDir))
      expect(readFileSync(join(stateDir, f)).includes(Buffer.from(sandbox.apiKey))).toBe(false);
  });

  it('a second process on the same state exits 5 at once naming the holder', async () => {
    sandbox = await startSandbox({ port: 0, quiet: true, faults: { latencyMs: 400 } });
    const stateDir = fresh('two');
    const env = {
      PATH: process.env.PATH,
      NO_COLOR: '1',
      GENSER_API_URL: sandbox.url,
      GENSER_API_KEY: sandbox.apiKey,
      GENSER_STATE_DIR: stateDir,
    };
    const file = catalog();
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stderr: string; child: ReturnType<typeof spawn> }>((resolve) => {
        const child = spawn(process.execPath, [bin, 'upload', file, ...args], { env });
        let stderr = '';
        child.stderr.on('data', (c) => {
          stderr += String(c);
        });
        child.on('close', (code) => resolve({ code, stderr, child }));
        children.push(child);
      });
    const children: ReturnType<typeof spawn>[] = [];
    // Slow batches of 1 keep the first run busy for 10 s; it is killed once the second is refused.
    const first = run(['--batch-size', '1', '--concurrency', '1']);
    // The first has its lock once its state file exists with a lock row.
    const deadline = Date.now() + 8000;
    let holder: number | undefined;
    while (Date.now() < deadline && holder === undefined) {
      await new Promise((r) => setTimeout(r, 50));
      const f = readdirSafe(stateDir).find((x) => x.endsWith('.sqlite'));
      if (!f) continue;
      try {
        const db = openDatabase(join(stateDir, f));
        try {
          holder = db.prepare<{ pid: number }>('SELECT pid FROM lock').get()?.pid;
        } finally {
          db.close();
        }
      } catch {
        // not created yet
      }
    }
    expect(holder).toBeDefined();
    const second = await run([]);
    expect(second.code).toBe(5);
    expect(second.stderr).toContain(`pid ${holder}`);
    expect(second.stderr).toMatch(/started \d{4}-\d\d-\d\dT/);
    children[0].kill('SIGKILL');
    expect((await first).code).toBeNull();
  }, 60_000);
});

describe.each(backends)('genser upload with state on %s (127.0.0.1)', (_backend, place, skip) => {
  it.skipIf(skip)(
    'new SKUs go as create_product, known ones as update_product, in separate envelopes; rejected ones again next run',
    async () => {
      let rejectSku: string | undefined;
      server = await scriptedServer((req, res) => {
        const products = productsOf(req.body);
        if (rejectSku && products.some((p) => p.sku === rejectSku))
          return json(res, 400, {
            type: 'about:blank',
            title: 'Bad Request',
            status: 400,
            detail: 'rejected',
            errors: products
              .map((p, i) => (p.sku === rejectSku ? { pointer: `/@graph/${i}`, detail: 'bad' } : null))
              .filter(Boolean),
          });
        json(res, 200, {});
      });
      const env = {
        GENSER_API_URL: server.url,
        GENSER_API_KEY: 'types-key-123456',
        GENSER_STATE_DIR: await place(),
      };
      const sku = (i: number) => sample[i - 1][header.indexOf('sku')];
      rejectSku = sku(5);
      const first = await genser(['upload', catalog(), '--batch-size', '100'], env);
      expect(first.code).toBe(1);
      const types1 = server.requests.map((r) => (JSON.parse(r.body) as { type: string }).type);
      expect(new Set(types1)).toEqual(new Set(['create_product']));

      rejectSku = undefined;
      server.requests.length = 0;
      const second = await genser(['upload', catalog({ 2: '54321' }), '--batch-size', '100'], env);
      expect(second.code).toBe(0);
      expect(second.stderr).toContain('state: 1 new, 1 changed, 23 unchanged (not sent)');
      const bodies = server.requests.map((r) => JSON.parse(r.body) as { type: string });
      expect(bodies.map((b) => b.type).sort()).toEqual(['create_product', 'update_product']);
      const skusOf = (type: string) =>
        server!.requests
          .filter((r) => (JSON.parse(r.body) as { type: string }).type === type)
          .flatMap((r) => productsOf(r.body).map((p) => p.sku));
      expect(skusOf('create_product')).toEqual([sku(5)]);
      expect(skusOf('update_product')).toEqual([sku(2)]);
    },
  );

  it.skipIf(skip)(
    'an upload killed with kill -9 mid-run, then run again: the service holds every product, and the state agrees with it',
    async () => {
      sandbox = await startSandbox({ port: 0, quiet: true, faults: { latencyMs: 150 } });
      const env = {
        GENSER_API_URL: sandbox.url,
        GENSER_API_KEY: sandbox.apiKey,
        GENSER_STATE_DIR: await place(),
      };
      const file = catalog();
      const child = spawn(
        process.execPath,
        [bin, 'upload', file, '--batch-size', '2', '--concurrency', '2'],
        {
          env: { PATH: process.env.PATH, HOME: process.env.HOME, NO_COLOR: '1', ...env },
        },
      );
      const exited = new Promise((resolve) => child.on('close', (_code, signal) => resolve(signal)));
      const received = async () =>
        (
          (await (await fetch(`${sandbox!.url}/_sandbox/products?limit=1000`)).json()) as {
            items: { sku: string; receivedCount: number }[];
          }
        ).items;
      // Killed once some batches landed and others are on their way.
      const deadline = Date.now() + 10_000;
      while ((await received()).length < 6 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 20));
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
      const landed = (await received()).length;
      expect(landed).toBeGreaterThanOrEqual(6);
      expect(landed).toBeLessThan(25);
      const again = await genser(['upload', file], env);
      expect(again.code, again.stderr).toBe(0);
      const items = await received();
      expect(items.map((p) => p.sku).sort()).toEqual(sample.map((r) => r[header.indexOf('sku')]).sort());
      // Only what the killed run may have had in flight is sent twice (2 batches of 2, re-sent with their ids).
      expect(items.filter((p) => p.receivedCount > 1).length).toBeLessThanOrEqual(4);
      const third = await genser(['upload', file], env);
      expect(third.stderr).toContain('state: 0 new, 0 changed, 25 unchanged (not sent)');
    },
  );
});

describe.each(backends)('--retry-failed (state in %s)', (_backend, place, skip) => {
  it.skipIf(skip)(
    'sends again only the rows the last run did not get accepted, from their saved payloads, named by file, row and line',
    async () => {
      let reject = true;
      const sku5 = sample[4][header.indexOf('sku')];
      server = await scriptedServer((req, res) => {
        const products = productsOf(req.body);
        const at = products.findIndex((p) => p.sku === sku5);
        if (reject && at >= 0)
          return json(res, 400, {
            type: 'about:blank',
            title: 'Bad Request',
            status: 400,
            detail: 'rejected',
            errors: [{ pointer: `/@graph/${at}`, detail: 'bad brand' }],
          });
        json(res, 200, {});
      });
      const env = {
        GENSER_API_URL: server.url,
        GENSER_API_KEY: 'retry-key-123456',
        GENSER_STATE_DIR: await place(),
      };
      const file = catalog();
      expect((await genser(['upload', file], env)).code).toBe(1);

      server.requests.length = 0;
      const again = await genser(['upload', '--retry-failed'], env);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain('retry: 1 row owed, not accepted by run');
      expect(again.stderr).toContain(`${file} row 5 (line 6, sku ${sku5}): rejected (HTTP 400)`);
      expect(server.requests.flatMap((r) => productsOf(r.body).map((p) => p.sku))).toEqual([sku5]);

      reject = false;
      server.requests.length = 0;
      const ok = await genser(['upload', '--retry-failed'], env);
      expect(ok.code).toBe(0);
      expect(server.requests).toHaveLength(1);
      const nothing = await genser(['upload', '--retry-failed'], env);
      expect(nothing.code).toBe(0);
      expect(nothing.stderr).toContain('retry: 0 rows owed: every row of earlier runs was accepted');
      expect(server.requests).toHaveLength(1);

      const withFeed = await genser(['upload', file, '--retry-failed'], env);
      expect(withFeed.code).toBe(2);
      expect(withFeed.stderr).toContain('--retry-failed takes no feed');
      const runs = await genser(['runs'], env);
      expect(runs.stdout).toContain('--retry-failed (1 row owed by run');
    },
  );
});

describe.each(backends)('products gone from the feed (state in %s)', (_backend, place, skip) => {
  it.skipIf(skip)(
    '--missing out-of-stock sends the gone ones as OutOfStock; the --max-change guard refuses 32% and sends nothing',
    async () => {
      sandbox = await startSandbox({ port: 0, quiet: true });
      const env = {
        GENSER_API_URL: sandbox.url,
        GENSER_API_KEY: sandbox.apiKey,
        GENSER_STATE_DIR: await place(),
      };
      expect((await genser(['upload', catalog()], env)).code).toBe(0);
      const sku = (i: number) => sample[i - 1][header.indexOf('sku')];
      const product = async (i: number) =>
        (await (await fetch(`${sandbox!.url}/_sandbox/products/${encodeURIComponent(sku(i))}`)).json()) as {
          receivedCount: number;
          data: { offers: { availability: string } };
        };

      // The default ignores them.
      const ignored = await genser(['upload', catalog({}, 20)], env);
      expect(ignored.code).toBe(0);
      expect((await product(25)).receivedCount).toBe(1);

      // 8 of 25 gone (32%): over the default 20%; nothing sent.
      const refused = await genser(['upload', catalog({ 1: '999' }, 17), '--missing', 'out-of-stock'], env);
      expect(refused.code).toBe(6);
      expect(refused.stderr).toContain('1 changed and 8 gone from the feed of 25 known products (9)');
      expect(refused.stderr).toContain('--max-change');
      expect((await product(1)).receivedCount).toBe(1);
      expect((await product(25)).receivedCount).toBe(1);

      // 5 of 25 (20%) is allowed: the 5 go again from their last payload, out of stock.
      const sent = await genser(['upload', catalog({}, 20), '--missing', 'out-of-stock'], env);
      expect(sent.code).toBe(0);
      expect(sent.stderr).toContain('5 gone from the feed');
      const inStock = (i: number) => !/out/i.test(sample[i - 1][header.indexOf('availability')]);
      const gone = [21, 22, 23, 24, 25];
      // Those already out of stock in the feed had these very bytes accepted: not sent again.
      expect(sent.stderr).toContain(`0 new, ${gone.filter(inStock).length} changed`);
      expect(gone.filter(inStock).length).toBeGreaterThan(0);
      for (const i of gone) {
        const p = await product(i);
        expect(p.receivedCount).toBe(inStock(i) ? 2 : 1);
        expect(p.data.offers.availability).toBe('OutOfStock');
      }
      expect((await product(20)).data.offers.availability).toBe('InStock');
      // Already out of stock: not sent again.
      await genser(['upload', catalog({}, 20), '--missing', 'out-of-stock'], env);
      expect((await product(25)).receivedCount).toBe(2);
    },
  );
});

describe('legacy format', () => {
  it('its own state (format in the target); unchanged rows not sent; gone ones sent with isInStock false', async () => {
    sandbox = await startSandbox({ port: 0, quiet: true });
    const stateDir = fresh('legacy');
    const env = { GENSER_API_URL: sandbox.url, GENSER_API_KEY: sandbox.apiKey, GENSER_STATE_DIR: stateDir };
    const lines = readFileSync(join(root, 'fixtures', 'legacy-catalog.csv'), 'utf8')
      .trimEnd()
      .split('\n');
    const full = `${fresh('legacy')}.csv`;
    writeFileSync(full, `${lines.join('\n')}\n`);
    const fewer = `${fresh('legacy')}.csv`;
    writeFileSync(fewer, `${lines.slice(0, -1).join('\n')}\n`);
    const gone = lines.at(-1)!.split(',')[0];

    const first = await genser(['upload', full, '--format', 'legacy'], env);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain(`state: ${lines.length - 1} new`);
    const second = await genser(
      [
        'upload',
        fewer,
        '--format',
        'legacy',
        '--missing',
        'out-of-stock',
        '--max-change',
        '100%',
        ...GUARDS_OFF,
      ],
      env,
    );
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('1 gone from the feed');
    const p = (await (
      await fetch(`${sandbox.url}/_sandbox/products/${encodeURIComponent(gone)}`)
    ).json()) as {
      receivedCount: number;
      inStock: boolean;
    };
    expect(p.receivedCount).toBe(2);
    expect(p.inStock).toBe(false);
    // The standard state of the same url and key is another file.
    await genser(['upload', catalog()], env);
    expect(readdirSync(stateDir).filter((f) => f.endsWith('.sqlite'))).toHaveLength(2);
  });
});

describe('resume after kill -9', () => {
  it('the next run sends only what was not confirmed, in-flight batches with their own ids: every product once', async () => {
    sandbox = await startSandbox({ port: 0, quiet: true, faults: { latencyMs: 200 } });
    const stateDir = fresh('crash');
    const env = { GENSER_API_URL: sandbox.url, GENSER_API_KEY: sandbox.apiKey, GENSER_STATE_DIR: stateDir };
    const file = catalog();
    const child = spawn(process.execPath, [bin, 'upload', file, '--batch-size', '5', '--concurrency', '2'], {
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
    });
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, sig) => r(sig)));
    // Killed once one batch is confirmed in the state: the next ones are in flight.
    let accepted = 0;
    let inflight = 0;
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && accepted === 0) {
      await new Promise((r) => setTimeout(r, 20));
      const f = readdirSafe(stateDir).find((x) => x.endsWith('.sqlite'));
      if (!f) continue;
      const db = openDatabase(join(stateDir, f));
      try {
        accepted = Number(db.prepare('SELECT count(*) AS n FROM accepted').get()?.n ?? 0);
        inflight = Number(db.prepare('SELECT count(*) AS n FROM inflight').get()?.n ?? 0);
      } catch {
        // schema not there yet
      } finally {
        db.close();
      }
      if (accepted > 0) child.kill('SIGKILL');
    }
    expect(await exited).toBe('SIGKILL');
    // Another batch may have landed between the count and the kill: count again, once it is dead.
    const f = readdirSafe(stateDir).find((x) => x.endsWith('.sqlite'));
    const db = openDatabase(join(stateDir, f!));
    try {
      accepted = Number(db.prepare('SELECT count(*) AS n FROM accepted').get()?.n ?? 0);
    } finally {
      db.close();
    }
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThan(25);
    expect(inflight).toBeGreaterThan(0);

    const second = await genser(['upload', file, '--batch-size', '5', '--concurrency', '2'], env);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain('never answered: sent again with their own envelope ids');
    expect(second.stderr).toMatch(new RegExp(`${accepted} unchanged \\(not sent\\)`));
    const list = (await (await fetch(`${sandbox.url}/_sandbox/products?limit=100`)).json()) as {
      total: number;
      items: { sku: string; receivedCount: number }[];
    };
    expect(list.total).toBe(25);
    expect(list.items.filter((p) => p.receivedCount !== 1)).toEqual([]);

    // The killed run is in the history with no exit code; a third run sends nothing.
    const runs = await genser(['runs'], env);
    expect(runs.stdout.trim().split('\n')).toHaveLength(3);
    // No exit code, then the target.
    expect(runs.stdout.trim().split('\n')[2]).toMatch(/\s-\s+\S+ \(standard\)$/);
    const third = await genser(['upload', file], env);
    expect(third.stderr).toContain('0 new, 0 changed, 25 unchanged (not sent)');
  }, 60_000);
});

function readdirSafe(d: string): string[] {
  try {
    return readdirSync(d);
  } catch {
    return [];
  }
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
