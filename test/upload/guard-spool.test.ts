import { execFileSync, spawn } from 'node:child_process';
import { constants, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FeedRow } from '../../src/feed/index.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { openDatabase } from '../../src/storage/sqlite.js';
import { Spool, spooledHooks, UNCHANGED } from '../../src/upload/spool.js';
import { GUARDS_OFF } from '../helpers/guards-off.js';
import { genser } from '../helpers/run-cli.js';
import { catalogCsv, catalogSku } from '../helpers/sample-catalog.js';
import { json, productsOf, type ScriptedServer, scriptedServer, sleepMs } from './servers.js';

/**
 * The nightly run reads its feed once (docs/nightly.md, "Mass-change guard"): the guard's pass
 * spools what the upload must still see, and the upload replays it instead of a second read.
 */

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
const dir = mkdtempSync(join(tmpdir(), 'genser-spool-'));
let n = 0;
const fresh = (name: string) => join(dir, `${name}-${++n}`);
const freshDir = (name: string) => {
  const d = fresh(name);
  mkdirSync(d);
  return d;
};

const sku = catalogSku;
const csv = catalogCsv;

function feedFile(text: string): string {
  const file = `${fresh('feed')}.csv`;
  writeFileSync(file, text);
  return file;
}

const all = (to: number) => Array.from({ length: to }, (_, i) => i + 1);
const spools = (stateDir: string) => readdirSync(stateDir).filter((f) => f.includes('spool'));

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearSecrets();
});

async function acceptingServer(): Promise<ScriptedServer> {
  return scriptedServer((_req, res) => json(res, 200, {}));
}

/** A target whose state knows the 25 sample products (a first upload done, its requests forgotten). */
async function known25(
  name: string,
): Promise<{ sink: ScriptedServer; env: Record<string, string>; stateDir: string }> {
  const sink = await acceptingServer();
  server = sink;
  const stateDir = fresh(name);
  const env = { GENSER_API_URL: sink.url, GENSER_API_KEY: `${name}-key-123456`, GENSER_STATE_DIR: stateDir };
  expect((await genser(['upload', feedFile(csv(all(25)))], env)).code).toBe(0);
  sink.requests.length = 0;
  return { sink, env, stateDir };
}

const sentSkus = (s: ScriptedServer) => s.requests.flatMap((r) => productsOf(r.body).map((p) => p.sku));

describe('the spool', () => {
  it('replays every item in order: rows to send with their bytes, invalid and file-level items, unchanged runs', async () => {
    const spool = Spool.open(freshDir('unit'));
    const items: [FeedRow, Uint8Array | undefined][] = [];
    const warn = { severity: 'warning' as const, code: 'w', file: 'a.csv', row: 4, message: 'note' };
    const bad = { severity: 'error' as const, code: 'type', file: 'a.csv', row: 5, message: 'bad\tprice' };
    const row = (file: string, r: number, extra: Partial<FeedRow> = {}): FeedRow => ({
      file,
      row: r,
      line: r * 2,
      sku: `S${r}`,
      issues: [],
      valid: true,
      ...extra,
    });
    items.push([{ file: 'a.csv', row: 0, line: 1, issues: [], valid: true }, undefined]);
    items.push([row('a.csv', 1), UNCHANGED], [row('a.csv', 2), UNCHANGED]);
    items.push([row('a.csv', 3), Buffer.from('{"sku":"S3","name":"tab\\t é"}')]);
    // The payload's price goes with it (null: it has none), as the state keeps it once accepted.
    items.push([row('a.csv', 31, { price: 12.75 }), Buffer.from('{"sku":"S31"}')]);
    items.push([row('a.csv', 32, { price: null }), Buffer.from('{"sku":"S32"}')]);
    items.push([row('a.csv', 4, { issues: [warn] }), UNCHANGED]);
    items.push([row('a.csv', 5, { issues: [bad], valid: false }), undefined]);
    items.push([row('a.csv', 6, { sku: undefined }), Buffer.from('{"n":6}')]);
    // A gap in the row numbers, then another file starting at row 1: new runs.
    items.push([row('a.csv', 8), UNCHANGED], [row('b.csv', 1), UNCHANGED], [row('b.csv', 2), UNCHANGED]);
    for (let r = 3; r < 5000; r++) items.push([row('b.csv', r), UNCHANGED]);
    for (const [item, bytes] of items) spool.add(item, bytes);
    expect(readdirSync(join(spool.path, '..'))).toContain(spool.path.split('/').at(-1));

    const back: FeedRow[] = [];
    for await (const item of spool.rows()) back.push(item);
    expect(back).toHaveLength(items.length);
    for (let i = 0; i < items.length; i++) {
      const [want, bytes] = items[i];
      const got = back[i];
      const { json: gotJson, ...gotRest } = got;
      expect(gotRest).toEqual(Object.fromEntries(Object.entries(want).filter(([, v]) => v !== undefined)));
      if (bytes === UNCHANGED) expect(gotJson).toBe(UNCHANGED);
      else if (bytes === undefined) expect(gotJson).toBeUndefined();
      else expect(Buffer.from(gotJson!).equals(Buffer.from(bytes))).toBe(true);
    }
    // Only the rows kept whole are records; the unchanged ones without issues are runs.
    expect(spool.records).toBe(7);
    spool.remove();
    expect(readdirSync(join(spool.path, '..'))).toEqual([]);
  });

  it('hooks: a replayed unchanged row is counted, not planned; any other goes to the state', async () => {
    const planned: (string | undefined)[] = [];
    const counts = { new: 0, changed: 0, unchanged: 0 };
    const hooks = spooledHooks({
      unchanged: async () => {
        counts.unchanged++;
        return undefined;
      },
      plan: async (s) => {
        planned.push(s);
        return { type: 'create_product' };
      },
      accepted: async () => {},
      sending: async () => {},
      settled: async () => {},
    });
    expect(await hooks.plan('A', UNCHANGED)).toBeUndefined();
    expect(await hooks.plan('B', Buffer.from('{}'))).toEqual({ type: 'create_product' });
    expect(planned).toEqual(['B']);
    expect(counts.unchanged).toBe(1);
  });

  it('a spool left by a run that is gone is removed by the next one', () => {
    const stateDir = freshDir('dead');
    // pid 2^22 + 1 is above Linux's pid_max: no such process.
    const dead = join(stateDir, `.upload-spool.genser-${2 ** 22 + 1}.tmp`);
    writeFileSync(dead, 'left over');
    const spool = Spool.open(stateDir);
    expect(spools(stateDir)).toEqual([spool.path.split('/').at(-1)]);
    spool.remove();
    expect(spools(stateDir)).toEqual([]);
  });
});

describe('genser upload with known products and the guard', () => {
  it('reads the feed once: a FIFO written once, which a second read would wait on', async () => {
    server = await acceptingServer();
    const stateDir = fresh('fifo-state');
    const env = { GENSER_API_URL: server.url, GENSER_API_KEY: 'fifo-key-123456', GENSER_STATE_DIR: stateDir };
    expect((await genser(['upload', feedFile(csv(all(25)))], env)).code).toBe(0);

    const fifo = `${fresh('fifo')}.csv`;
    execFileSync('mkfifo', [fifo]);
    const writer = (async () => {
      const fh = await open(fifo, 'w');
      await fh.writeFile(csv(all(25), { 7: '77777' }));
      await fh.close();
    })();
    server.requests.length = 0;
    const running = genser(['upload', fifo, '--missing', 'out-of-stock'], env);
    const first = await Promise.race([running.then(() => 'done'), sleepMs(4000).then(() => 'waiting')]);
    // A second open of the FIFO waits for a writer: give it an empty one so the run ends.
    if (first === 'waiting') await (await open(fifo, constants.O_WRONLY | constants.O_NONBLOCK)).close();
    await writer;
    const run = await running;

    expect(first).toBe('done');
    expect(run.stderr).toContain('state: 0 new, 1 changed, 24 unchanged (not sent)');
    expect(run.code).toBe(0);
    expect(sentSkus(server)).toEqual([sku(7)]);
    expect(spools(stateDir)).toEqual([]);
  });

  it('still refuses 28% gone or 24% changed: nothing sent, exit 6 (a guard), the spool removed', async () => {
    const { sink, env, stateDir } = await known25('refuse');

    const gone = await genser(['upload', feedFile(csv(all(18))), '--missing', 'out-of-stock'], env);
    expect(gone.code).toBe(6);
    expect(gone.stderr).toContain(
      'genser: 0 changed and 7 gone from the feed of 25 known products (7) is more than --max-change allows (20%, 5): nothing was sent',
    );
    const reprice = Object.fromEntries([1, 2, 3, 4, 5, 6].map((i) => [i, '1234']));
    const changed = await genser(['upload', feedFile(csv(all(25), reprice))], env);
    expect(changed.code).toBe(6);
    expect(changed.stderr).toContain('6 changed of 25 known products (6)');
    expect(sink.requests).toEqual([]);
    expect(spools(stateDir)).toEqual([]);
    // Raised for the changes, the price shock (on by default, 20%:50%) still reads both prices: 6 of
    // 25 (24%) move by more than half.
    const shocked = await genser(['upload', feedFile(csv(all(25), reprice)), '--max-change', '6'], env);
    expect(shocked.code).toBe(6);
    expect(shocked.stderr).toContain('6 of 25 known products (24%) change price by more than 50%');
    expect(sink.requests).toEqual([]);
    // Allowed once raised: the 6 go.
    const raised = await genser(
      ['upload', feedFile(csv(all(25), reprice)), '--max-change', '6', '--price-shock', 'off'],
      env,
    );
    expect(raised.code).toBe(0);
    expect(sentSkus(sink).sort()).toEqual([1, 2, 3, 4, 5, 6].map(sku).sort());
  });

  it('the price shock compares the prices kept with the SKUs: no accepted payload is read (here, none could be)', async () => {
    const { env, stateDir } = await known25('prices');
    // Every pack unreadable: a payload read would stop the run as damage (exit 2).
    const [file] = readdirSync(stateDir).filter((f) => f.endsWith('.sqlite'));
    const db = openDatabase(join(stateDir, file));
    db.prepare('UPDATE packs SET data = ?').run(Buffer.from('bytes a disk changed'));
    db.close();
    const reprice = Object.fromEntries([1, 2, 3, 4, 5, 6].map((i) => [i, '1234']));
    const shocked = await genser(['upload', feedFile(csv(all(25), reprice)), '--max-change', '6'], env);
    expect(shocked.stderr).toContain('6 of 25 known products (24%) change price by more than 50%');
    expect(shocked.code).toBe(6);
  });

  it('applies to stdin, read once: refuses 24% changed, sends the one changed row', async () => {
    const { sink, env, stateDir } = await known25('stdin');
    const piped = (text: string) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [bin, 'upload', '-', '--input-type', 'csv'], {
          env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
        });
        let stderr = '';
        child.stderr.on('data', (c) => {
          stderr += String(c);
        });
        child.on('close', (code) => resolve({ code, stderr }));
        child.stdin.end(text);
      });
    const reprice = Object.fromEntries([1, 2, 3, 4, 5, 6].map((i) => [i, '1234']));
    const refused = await piped(csv(all(25), reprice));
    expect(refused.stderr).toContain('6 changed of 25 known products (6) is more than --max-change allows');
    expect(refused.code).toBe(6);
    expect(sink.requests).toEqual([]);
    const one = await piped(csv(all(25), { 9: '9999' }));
    expect(one.stderr).toContain('state: 0 new, 1 changed, 24 unchanged (not sent)');
    expect(one.code).toBe(0);
    expect(sentSkus(sink)).toEqual([sku(9)]);
    expect(spools(stateDir)).toEqual([]);
  });

  it('a run stopped (SIGTERM) while the pass reads removes its spool', async () => {
    server = await acceptingServer();
    const stateDir = fresh('term-state');
    const env = { GENSER_API_URL: server.url, GENSER_API_KEY: 'term-key-123456', GENSER_STATE_DIR: stateDir };
    expect((await genser(['upload', feedFile(csv(all(25)))], env)).code).toBe(0);
    const fifo = `${fresh('term-fifo')}.csv`;
    execFileSync('mkfifo', [fifo]);
    server.requests.length = 0;
    const child = spawn(process.execPath, [bin, 'upload', fifo], {
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
    });
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += String(c);
    });
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, sig) => r(sig)));
    // Half the feed, and the writer stays open: the pass waits for the rest.
    const fh = await open(fifo, 'w');
    const text = csv(all(25));
    await fh.write(text.slice(0, text.length / 2));
    const deadline = Date.now() + 8000;
    while (Date.now() < deadline && spools(stateDir).length === 0) await sleepMs(20);
    expect(spools(stateDir)).toHaveLength(1);
    child.kill('SIGTERM');
    expect(await exited).toBe('SIGTERM');
    // An orderly stop first (src/commands/sending.ts): the summary is out before the read that
    // still waits on the FIFO's writer makes the process die of the signal.
    expect(stderr).toContain('upload: 0 rows');
    expect(stderr).toContain('genser: interrupted: no new requests were started');
    await fh.close().catch(() => {});
    expect(spools(stateDir)).toEqual([]);
    expect(server.requests).toEqual([]);
  });

  it('a mixed run from the spool: the same requests, output and report as streaming the feed (--max-change 100%)', async () => {
    server = await acceptingServer();
    const seeded = fresh('mixed-seed');
    const key = 'mixed-key-123456';
    const envOf = (stateDir: string) => ({
      GENSER_API_URL: server!.url,
      GENSER_API_KEY: key,
      GENSER_STATE_DIR: stateDir,
    });
    expect((await genser(['upload', feedFile(csv(all(23)))], envOf(seeded))).code).toBe(0);
    const spooled = fresh('mixed-a');
    const streamed = fresh('mixed-b');
    cpSync(seeded, spooled, { recursive: true });
    cpSync(seeded, streamed, { recursive: true });

    // Row 3 changed, row 5 invalid, 24 and 25 new, 20 gone; batches of 2 so there are several.
    const feed = feedFile(csv([...all(19), 21, 22, 23, 24, 25], { 3: '31000', 5: 'not a price' }));
    const args = ['upload', feed, '--missing', 'out-of-stock', '--batch-size', '2', '--concurrency', '1'];
    const runOf = async (stateDir: string, extra: string[]) => {
      server!.requests.length = 0;
      const report = join(stateDir, 'report.json');
      const ran = await genser([...args, '--report', report, ...extra], envOf(stateDir));
      const bodies = server!.requests.map((r) => {
        const { id: _id, ...rest } = JSON.parse(r.body) as { id?: string };
        return rest;
      });
      return { ...ran, bodies, report: JSON.parse(readFileSync(report, 'utf8')) as unknown };
    };
    const a = await runOf(spooled, []);
    const b = await runOf(streamed, ['--max-change', '100%', ...GUARDS_OFF]);

    expect(a.code).toBe(1);
    expect(a.stderr).toContain('state: 2 new, 2 changed, 20 unchanged (not sent); 1 gone from the feed');
    expect(a.bodies.length).toBeGreaterThan(1);
    expect(a.bodies).toEqual(b.bodies);
    expect(timeless(a.stderr)).toBe(timeless(b.stderr));
    expect(timeless(a.report)).toEqual(timeless(b.report));
    expect(spools(spooled)).toEqual([]);
  });
});

/** Durations, instants and envelope ids differ from run to run; the rest must not. */
function timeless<T>(value: T): T {
  if (typeof value === 'string')
    return value
      .replace(/\d+(\.\d+)?\s?(ms|s)\b/g, 'T')
      .replace(/\([\d,]+ rows\/s\)/g, '(R)')
      .replace(/\(.*, in [^)]*\)/g, '(WHEN)')
      .replace(/[0-9a-f-]{36}/g, 'ID') as T;
  if (Array.isArray(value)) return value.map(timeless) as T;
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !/ms$|Ms$|^requestId$|^generatedAt$|^startedAt$/.test(k))
        .map(([k, v]) => [k, timeless(v)]),
    ) as T;
  return value;
}
