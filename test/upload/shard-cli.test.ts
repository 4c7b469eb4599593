import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { openDatabase } from '../../src/storage/sqlite.js';
import { shardOf } from '../../src/upload/shard.js';
import { GUARDS_OFF } from '../helpers/guards-off.js';
import { startPostgres, stateBackends } from '../helpers/postgres.js';
import { genser } from '../helpers/run-cli.js';
import { json, productsOf, type ScriptedServer, scriptedServer } from './servers.js';

/**
 * `--shard I/N` through the real CLI against the embedded sandbox and scripted servers on
 * 127.0.0.1 (docs/nightly.md, "Shards").
 */
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
const dir = mkdtempSync(join(tmpdir(), 'genser-shard-'));
let n = 0;
const fresh = (name: string) => join(dir, `${name}-${++n}`);
const pgServer = await startPostgres();
afterAll(() => pgServer?.stop());
const backends = stateBackends(pgServer, () => fresh('state'));

const [header, ...sample] = Papa.parse<string[]>(
  readFileSync(join(root, 'fixtures', 'catalog.csv'), 'utf8'),
  {
    skipEmptyLines: true,
  },
).data;
const SKU = header.indexOf('sku');
const PRICE = header.indexOf('price');
const skus = sample.map((r) => r[SKU]);

/** A CSV of the fixture's rows (all 25 unless `rows` picks some), plus any extra raw rows. */
function feed(rows: string[][] = sample, extra: string[][] = []): string {
  const file = `${fresh('feed')}.csv`;
  writeFileSync(file, `${Papa.unparse([header, ...rows, ...extra], { newline: '\n' })}\n`);
  return file;
}

const inShard = (i: number, count: number) => skus.filter((s) => shardOf(s, count) === i);

let sandbox: RunningSandbox | undefined;
let server: ScriptedServer | undefined;
afterEach(async () => {
  await sandbox?.close();
  await server?.close();
  sandbox = undefined;
  server = undefined;
  clearSecrets();
});

async function received(sb: RunningSandbox): Promise<Map<string, number>> {
  const list = (await (await fetch(`${sb.url}/_sandbox/products?limit=1000`)).json()) as {
    items: { sku: string; receivedCount: number }[];
  };
  return new Map(list.items.map((p) => [p.sku, p.receivedCount]));
}

describe.each(backends)('--shard against the sandbox, state in %s', (backend, place, skip) => {
  it.skipIf(skip)(
    'three shards send every product exactly once in total; a second run of each sends nothing',
    async () => {
      sandbox = await startSandbox({ port: 0, quiet: true });
      const state = await place();
      const env = { GENSER_API_URL: sandbox.url, GENSER_API_KEY: sandbox.apiKey, GENSER_STATE_DIR: state };
      const file = feed();
      // The fixture's SKUs fall 7, 5 and 13 in three shards: none is empty.
      expect([1, 2, 3].map((i) => inShard(i, 3).length)).toEqual([7, 5, 13]);

      for (const i of [1, 2, 3]) {
        const mine = inShard(i, 3).length;
        const run = await genser(['upload', file, '--shard', `${i}/3`], env);
        expect(run.code, run.stderr).toBe(0);
        expect(run.stderr).toContain(
          `shard ${i}/3: ${mine} of 25 rows; ${25 - mine} in other shards (not sent)`,
        );
        expect(run.stderr).toContain(`state: ${mine} new, 0 changed, 0 unchanged (not sent)`);
      }
      const once = await received(sandbox);
      expect([...once.keys()].sort()).toEqual([...skus].sort());
      expect([...once.values()].every((c) => c === 1)).toBe(true);
      if (backend === 'sqlite')
        expect(
          readdirSync(state)
            .filter((f) => f.endsWith('.sqlite'))
            .map((f) => f.replace(/^.*-shard-/, 'shard-')),
        ).toEqual(
          expect.arrayContaining(['shard-1-of-3.sqlite', 'shard-2-of-3.sqlite', 'shard-3-of-3.sqlite']),
        );

      // Delta per shard: nothing changed, nothing sent. The JSON report names the shard and its rows.
      for (const i of [1, 2, 3]) {
        const report = `${fresh('report')}.json`;
        const run = await genser(['upload', file, '--shard', `${i}/3`, '--report', report], env);
        expect(run.code).toBe(0);
        expect(run.stderr).toContain(`state: 0 new, 0 changed, ${inShard(i, 3).length} unchanged (not sent)`);
        expect(JSON.parse(readFileSync(report, 'utf8')).shard).toEqual({
          index: i,
          count: 3,
          feedRows: 25,
          shardRows: inShard(i, 3).length,
        });
      }
      expect(await received(sandbox)).toEqual(once);

      // A changed price is sent by the SKU's own shard, and only there.
      const changed = skus.indexOf(inShard(2, 3)[0]);
      const repriced = sample.map((r, i) =>
        i === changed ? r.map((c, j) => (j === PRICE ? '12345' : c)) : r,
      );
      const file2 = feed(repriced);
      for (const i of [1, 2, 3]) {
        const run = await genser(['upload', file2, '--shard', `${i}/3`], env);
        expect(run.stderr).toContain(`state: 0 new, ${i === 2 ? 1 : 0} changed`);
      }
      expect((await received(sandbox)).get(skus[changed])).toBe(2);

      // The history: per shard with --shard, all of them without.
      const all = await genser(['runs'], env);
      expect(all.stdout.trim().split('\n')).toHaveLength(1 + 9);
      expect(all.stdout.split('\n')[0]).toMatch(/\sexit\s+target\s+shard$/);
      const three = await genser(['runs', '--shard', '3/3', '--json'], env);
      const targets = JSON.parse(three.stdout) as { shard: string; runs: { id: string; rows: number }[] }[];
      expect(targets.map((t) => t.shard)).toEqual(['3/3']);
      expect(targets[0].runs.map((r) => r.rows)).toEqual([13, 13, 13]);
      const shown = await genser(['runs', 'show', targets[0].runs[0].id], env);
      expect(shown.stdout).toContain(`(standard, shard 3/3)`);
      // Another shard's run is not found under --shard 1/3.
      const other = await genser(['runs', 'show', targets[0].runs[0].id, '--shard', '1/3'], env);
      expect(other.code).toBe(2);
    },
  );

  it.skipIf(skip)(
    'a product gone from the feed is sent out of stock by its own shard only; the guard counts the shard',
    async () => {
      sandbox = await startSandbox({ port: 0, quiet: true });
      const env = {
        GENSER_API_URL: sandbox.url,
        GENSER_API_KEY: sandbox.apiKey,
        GENSER_STATE_DIR: await place(),
      };
      for (const i of [1, 2, 3])
        expect((await genser(['upload', feed(), '--shard', `${i}/3`], env)).code).toBe(0);

      // One product of shard 2 (5 known there: 1 gone is 20%, within the default --max-change).
      const gone = inShard(2, 3)[1];
      const without = feed(sample.filter((r) => r[SKU] !== gone));
      const lines: Record<number, string> = {};
      for (const i of [1, 2, 3]) {
        const run = await genser(['upload', without, '--shard', `${i}/3`, '--missing', 'out-of-stock'], env);
        expect(run.code, run.stderr).toBe(0);
        lines[i] = run.stderr;
      }
      expect(lines[2]).toContain('state: 0 new, 1 changed, 4 unchanged (not sent); 1 gone from the feed');
      expect(lines[1]).toContain('state: 0 new, 0 changed, 7 unchanged (not sent); 0 gone from the feed');
      expect(lines[3]).toContain('0 gone from the feed');
      const product = (await (
        await fetch(`${sandbox.url}/_sandbox/products/${encodeURIComponent(gone)}`)
      ).json()) as { receivedCount: number; data: { offers: { availability: string } } };
      // Sent out of stock once in total, by shard 2; skipping products of shards 1 and 3 did not
      // make them look gone there.
      expect(product.receivedCount).toBe(2);
      expect(product.data.offers.availability).toBe('OutOfStock');
      const counts = await received(sandbox);
      expect([...counts].filter(([sku, c]) => sku !== gone && c !== 1)).toEqual([]);

      // The guard counts against the shard's own known products: two more of shard 2 gone makes
      // 3 of the 5 known there (the one already out of stock counts too), refused; the same feed
      // is fine for shards 1 and 3, which know none of them.
      const [a, b] = inShard(2, 3).filter((s) => s !== gone);
      const fewer = feed(sample.filter((r) => ![gone, a, b].includes(r[SKU])));
      const refused = await genser(['upload', fewer, '--shard', '2/3', '--missing', 'out-of-stock'], env);
      expect(refused.code).toBe(6);
      expect(refused.stderr).toContain('0 changed and 3 gone from the feed of 5 known products (3)');
      const fine = await genser(['upload', fewer, '--shard', '3/3', '--missing', 'out-of-stock'], env);
      expect(fine.code).toBe(0);
      expect((await received(sandbox)).get(a)).toBe(1);

      // A row without its SKU (shard 1's to report) could be any shard's product: no shard marks
      // anything gone from such a feed.
      const noSku = sample.find((r) => r[SKU] === a)!.map((c, j) => (j === SKU ? '' : c));
      const broken = feed(
        sample.filter((r) => r[SKU] !== a),
        [noSku],
      );
      const run = await genser(
        [
          'upload',
          broken,
          '--shard',
          '2/3',
          '--missing',
          'out-of-stock',
          '--max-change',
          '100%',
          ...GUARDS_OFF,
        ],
        env,
      );
      expect(run.code).toBe(0);
      expect(run.stderr).toContain('0 gone from the feed');
      expect((await received(sandbox)).get(a)).toBe(1);
    },
  );
});

describe('--shard-count against the sandbox', () => {
  it('--shard-count N takes the shard from JOB_COMPLETION_INDEX (0-based), into the same state as --shard', async () => {
    sandbox = await startSandbox({ port: 0, quiet: true });
    const env = {
      GENSER_API_URL: sandbox.url,
      GENSER_API_KEY: sandbox.apiKey,
      GENSER_STATE_DIR: fresh('k8s'),
    };
    const file = feed();
    const job = await genser(['upload', file, '--shard-count', '3'], { ...env, JOB_COMPLETION_INDEX: '1' });
    expect(job.code, job.stderr).toBe(0);
    expect(job.stderr).toContain('shard 2/3: 5 of 25 rows; 20 in other shards (not sent)');
    expect([...(await received(sandbox)).keys()].sort()).toEqual(inShard(2, 3).sort());
    // The environment variables of a GitHub matrix or a config: the same shard, the same state.
    const again = await genser(['upload', file], { ...env, GENSER_SHARD: '2/3' });
    expect(again.stderr).toContain('state: 0 new, 0 changed, 5 unchanged (not sent)');
    const viaCount = await genser(['upload', file], {
      ...env,
      GENSER_SHARD_COUNT: '3',
      JOB_COMPLETION_INDEX: '1',
    });
    expect(viaCount.stderr).toContain('state: 0 new, 0 changed, 5 unchanged (not sent)');

    // Another shard count starts new state per shard, and says so.
    const two = await genser(['upload', file, '--shard', '1/2'], env);
    expect(two.code).toBe(0);
    expect(two.stderr).toContain(
      'state: no state yet for shard 1/2 of this target, which has state for 3 shards: a new shard count starts a new state per shard',
    );
    expect(two.stderr).toContain(`state: ${inShard(1, 2).length} new, 0 changed, 0 unchanged`);
    // The other shard of that count starting its state: no change of count, nothing to say.
    const twoOfTwo = await genser(['upload', file, '--shard', '2/2'], env);
    expect(twoOfTwo.code).toBe(0);
    expect(twoOfTwo.stderr).toContain('which has state for 3 shards:');
    expect(twoOfTwo.stderr).not.toContain('2 shards');
    // 1/1 is the whole feed, with the unsharded state.
    const whole = await genser(['upload', file, '--shard', '1/1'], env);
    expect(whole.stderr).not.toContain('shard 1/1');
    expect(whole.stderr).toContain('which has state for 2 shards and 3 shards');
    expect(whole.stderr).toContain('state: 25 new');
    expect((await genser(['upload', file], env)).stderr).toContain('state: 0 new, 0 changed, 25 unchanged');
  });
});

describe('--shard: rows and problems', () => {
  it('each problem is reported by exactly one shard: a row without SKU by shard 1, others by their SKU; duplicates share one', async () => {
    const extra = [
      // No SKU: shard 1 only.
      sample[0].map((c, j) => (j === SKU ? '' : c)),
      // A duplicate: the same SKU, so the same shard as the first.
      sample[2],
      // A bad price on a SKU of its own.
      sample[3].map((c, j) => (j === SKU ? 'GS-BAD-1' : j === PRICE ? 'lots' : c)),
    ];
    const file = feed(sample, extra);
    const problems: { shard: number; row: number; code: string }[] = [];
    let rows = 0;
    const codes: number[] = [];
    for (const i of [1, 2, 3]) {
      const run = await genser(['upload', file, '--dry-run', '--shard', `${i}/3`, '--json'], {});
      codes.push(run.code);
      const report = JSON.parse(run.stdout) as {
        summary: { rows: number };
        issues: { row?: number; code: string; severity: string }[];
      };
      rows += report.summary.rows;
      for (const issue of report.issues.filter((x) => x.severity === 'error'))
        problems.push({ shard: i, row: issue.row ?? 0, code: issue.code });
    }
    expect(rows).toBe(28);
    const byRow = new Map<number, number[]>();
    // A row may have several errors: they must all come from one shard.
    for (const p of problems) byRow.set(p.row, [...new Set([...(byRow.get(p.row) ?? []), p.shard])]);
    // Rows 26 (no SKU), 27 (duplicate) and 28 (bad price), each in one shard's report.
    expect([...byRow.keys()].sort((x, y) => x - y)).toEqual([26, 27, 28]);
    expect(byRow.get(26)).toEqual([1]);
    expect(byRow.get(27)).toEqual([shardOf(sample[2][SKU], 3)]);
    expect(problems.find((p) => p.row === 27)?.code).toBe('duplicate_sku');
    expect(byRow.get(28)).toEqual([shardOf('GS-BAD-1', 3)]);
    // Exit 1 exactly for the shards that report a problem.
    expect(codes).toEqual([1, 2, 3].map((i) => (problems.some((p) => p.shard === i) ? 1 : 0)));
  });

  it('--retry-failed retries the rows owed to the shard itself', async () => {
    const reject = inShard(3, 3)[0];
    server = await scriptedServer((req, res) => {
      const products = productsOf(req.body);
      const i = products.findIndex((p) => p.sku === reject);
      if (i < 0) return json(res, 200, {});
      json(res, 400, {
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: 'rejected',
        errors: [{ pointer: `/@graph/${i}`, detail: 'bad' }],
      });
    });
    const env = {
      GENSER_API_URL: server.url,
      GENSER_API_KEY: 'shard-key-123456',
      GENSER_STATE_DIR: fresh('retry'),
    };
    const file = feed();
    expect((await genser(['upload', file, '--shard', '1/3', '--batch-size', '1'], env)).code).toBe(0);
    expect((await genser(['upload', file, '--shard', '3/3', '--batch-size', '1'], env)).code).toBe(1);
    server.requests.length = 0;
    const retried = await genser(['upload', '--retry-failed', '--shard', '3/3'], env);
    expect(retried.stderr).toContain('retry: 1 row owed, not accepted by run');
    expect(server.requests.flatMap((r) => productsOf(r.body).map((p) => p.sku))).toEqual([reject]);
    server.requests.length = 0;
    const none = await genser(['upload', '--retry-failed', '--shard', '1/3'], env);
    expect(none.code).toBe(0);
    expect(none.stderr).toContain('retry: 0 rows owed');
    expect(server.requests).toHaveLength(0);
  });
});

describe('--shard usage errors', () => {
  it('exit 2 with one line and a hint, before anything is read or sent', async () => {
    server = await scriptedServer((_req, res) => json(res, 200, {}));
    const env = {
      GENSER_API_URL: server.url,
      GENSER_API_KEY: 'shard-key-123456',
      GENSER_STATE_DIR: fresh('usage'),
    };
    const file = feed();
    const cases: [string[], NodeJS.ProcessEnv, string][] = [
      [['--shard', '0/4'], {}, 'genser: --shard: shards count from 1, so 0/4 names none'],
      [['--shard', '5/4'], {}, 'genser: --shard: shard 5 is more than the 4 shards'],
      [['--shard', '1/0'], {}, 'genser: --shard: the shard count N must be at least 1'],
      [['--shard', 'half'], {}, 'genser: --shard must be I/N (shard I of N); got "half"'],
      [[], { GENSER_SHARD: '3' }, 'genser: GENSER_SHARD must be I/N'],
      [
        ['--shard-count', '0'],
        { JOB_COMPLETION_INDEX: '0' },
        'genser: --shard-count must be a whole number of shards from 1',
      ],
      [
        ['--shard-count', '4'],
        {},
        'genser: --shard-count 4 takes the shard from JOB_COMPLETION_INDEX, which is not set',
      ],
      [
        ['--shard-count', '4'],
        { JOB_COMPLETION_INDEX: '4' },
        'genser: JOB_COMPLETION_INDEX must be a whole number from 0 to 3',
      ],
      [
        ['--shard', '2/4', '--shard-count', '3'],
        { JOB_COMPLETION_INDEX: '1' },
        'genser: --shard 2/4 and --shard-count 3 disagree',
      ],
    ];
    for (const [args, extra, message] of cases) {
      const run = await genser(['upload', file, ...args], { ...env, ...extra });
      expect(run.code, args.join(' ')).toBe(2);
      const lines = run.stderr.trim().split('\n');
      expect(lines[0]).toContain(message);
      expect(lines).toHaveLength(2);
      expect(lines[1]).toMatch(/^hint: /);
    }
    expect((await genser(['runs', '--shard', '2/x'], env)).stderr).toContain('--shard must be I/N');
    expect(server.requests).toHaveLength(0);
    // Refused before the state was opened: not even its directory was made.
    expect(existsSync(env.GENSER_STATE_DIR)).toBe(false);
  });
});

describe('--shard locks', () => {
  it('two shards run at once; the same shard twice exits 5', async () => {
    sandbox = await startSandbox({ port: 0, quiet: true, faults: { latencyMs: 300 } });
    const state = fresh('locks');
    const env = { GENSER_API_URL: sandbox.url, GENSER_API_KEY: sandbox.apiKey, GENSER_STATE_DIR: state };
    const file = feed();
    // Shard 3 in another process, slowed down: 13 batches of 1, one at a time.
    const child = spawn(
      process.execPath,
      [bin, 'upload', file, '--shard', '3/3', '--batch-size', '1', '--concurrency', '1'],
      {
        env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
      },
    );
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      // It holds its lock once its state file has a lock row.
      let holder: number | undefined;
      const deadline = Date.now() + 8000;
      while (holder === undefined && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        try {
          const f = readdirSync(state).find((x) => x.endsWith('-shard-3-of-3.sqlite'));
          if (!f) continue;
          const db = openDatabase(join(state, f));
          try {
            holder = db.prepare<{ pid: number }>('SELECT pid FROM lock').get()?.pid;
          } finally {
            db.close();
          }
        } catch {
          // not created yet
        }
      }
      expect(holder).toBe(child.pid);
      const other = await genser(['upload', file, '--shard', '2/3'], env);
      expect(other.code, other.stderr).toBe(0);
      const same = await genser(['upload', file, '--shard', '3/3'], env);
      expect(same.code).toBe(5);
      expect(same.stderr).toContain(`pid ${holder}`);
      expect(same.stderr).toContain('-shard-3-of-3.sqlite');
    } finally {
      child.kill('SIGKILL');
      await exited;
      // Its last request is still in the sandbox's 300 ms latency: let it end before the sandbox closes.
      await new Promise((r) => setTimeout(r, 400));
    }
  }, 60_000);

  // The state in PostgreSQL: the lock is the holder's session; killed, its connection takes it.
  it.skipIf(!pgServer)(
    'in PostgreSQL too: the same shard twice exits 5 naming the holder; killed, the lock goes',
    async () => {
      sandbox = await startSandbox({ port: 0, quiet: true, faults: { latencyMs: 300 } });
      const url = await pgServer!.database();
      const env = { GENSER_API_URL: sandbox.url, GENSER_API_KEY: sandbox.apiKey, GENSER_STATE_DIR: url };
      const file = feed();
      const child = spawn(
        process.execPath,
        [bin, 'upload', file, '--shard', '3/3', '--batch-size', '1', '--concurrency', '1'],
        { env: { PATH: process.env.PATH, NO_COLOR: '1', ...env } },
      );
      const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      try {
        let holder: number | undefined;
        const deadline = Date.now() + 8000;
        while (holder === undefined && Date.now() < deadline) {
          await new Promise((r) => setTimeout(r, 50));
          holder = await db.query<{ pid: number }>('SELECT pid FROM genser_lock').then(
            (r) => r.rows[0]?.pid,
            () => undefined, // the schema is not made yet
          );
        }
        expect(holder).toBe(child.pid);
        const same = await genser(['upload', file, '--shard', '3/3'], env);
        expect(same.code).toBe(5);
        expect(same.stderr).toContain(`pid ${holder}`);
        child.kill('SIGKILL');
        await exited;
        const after = await genser(['upload', file, '--shard', '3/3'], env);
        expect(after.code, after.stderr).toBe(0);
      } finally {
        child.kill('SIGKILL');
        await exited;
        await db.end();
        await new Promise((r) => setTimeout(r, 400));
      }
    },
    20_000,
  );
});
