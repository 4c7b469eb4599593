import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { openDatabase } from '../../src/storage/sqlite.js';
import { shardOf } from '../../src/upload/shard.js';
import { genser } from '../helpers/run-cli.js';
import { json, productsOf, type ScriptedServer, scriptedServer } from './servers.js';

/**
 * `genser stock FILE` (docs/nightly.md, "Stock changes") through the real CLI, against the
 * sandbox and scripted servers on 127.0.0.1: the merge into the last accepted payload, the
 * answers reported by the stock file's rows, the exit codes, the lock, and what a later upload
 * of the old feed sees.
 */
const root = join(import.meta.dirname, '..', '..');
const LEGACY_FEED = join(root, 'fixtures', 'legacy-catalog.csv');
const STANDARD_FEED = join(root, 'fixtures', 'catalog.csv');
const KEY = 'stock-test-key-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'genser-stock-'));
let n = 0;
const fresh = (name: string) => join(dir, `${name}-${++n}`);

function stockFile(text: string, ext = 'csv'): string {
  const file = `${fresh('stock')}.${ext}`;
  writeFileSync(file, text);
  return file;
}

const LEGACY_OK = { httpStatus: { code: '200', reasonPhrase: 'OK' }, processCode: 'OK', processValue: {} };

let sandbox: RunningSandbox | undefined;
let server: ScriptedServer | undefined;
afterEach(async () => {
  await sandbox?.close();
  await server?.close();
  sandbox = undefined;
  server = undefined;
  clearSecrets();
});

/** A sandbox with a known key, and the env + flags that point genser at it with its own state. */
async function sandboxTarget() {
  sandbox = await startSandbox({ port: 0, quiet: true, apiKey: KEY });
  const state = fresh('state');
  return {
    url: sandbox.url,
    env: { GENSER_API_KEY: KEY },
    flags: ['--api-url', sandbox.url, '--state', state],
  };
}

async function get(url: string, path: string) {
  return (await fetch(url + path)).json() as Promise<Record<string, any>>;
}

describe('legacy target', () => {
  it('sends the last accepted payload with only isInStock changed, and the sandbox applies it at once', async () => {
    const t = await sandboxTarget();
    const up = await genser(['upload', LEGACY_FEED, '--format', 'legacy', ...t.flags], t.env);
    expect(up.code).toBe(0);
    await fetch(`${t.url}/_sandbox/batch`, { method: 'POST', headers: { 'x-genser-sandbox': '1' } });
    const before = await get(t.url, '/_sandbox/products/GS-0001?format=legacy');
    expect(before.data.isInStock).not.toBe(false);

    const file = stockFile('sku,in_stock\nGS-0001,No\nGS-0002,TRUE\n');
    const run = await genser(['stock', file, '--format', 'legacy', ...t.flags], t.env);
    expect(run.stderr).toContain('stock: 2 rows, 0 invalid (not sent), 2 sent in 1 batch: 2 accepted');
    expect(run.stderr).toContain(
      'at once: the legacy API applies stock (isInStock) on receipt (contract 1.5)',
    );
    expect(run.code).toBe(0);

    const after = await get(t.url, '/_sandbox/products/GS-0001?format=legacy');
    expect(after.receivedCount).toBe(2);
    expect(after.data.isInStock).toBe(false);
    const { isInStock: _a, ...was } = before.data;
    const { isInStock: _b, ...now } = after.data;
    expect(now).toEqual(was);
    // Applied at once: what search sees has the new stock before any batch.
    expect(after.status).toBe('pending');
    expect(after.inStock).toBe(false);
    expect(after.applied.isInStock).toBe(false);
  });

  it('reports an unknown SKU, a bad value, a row without SKU and a duplicate SKU as error rows; the other rows go', async () => {
    const t = await sandboxTarget();
    expect((await genser(['upload', LEGACY_FEED, '--format', 'legacy', ...t.flags], t.env)).code).toBe(0);
    const file = stockFile(
      'sku,in_stock\nGS-0003,0\nNOPE-1,1\nGS-0004,maybe\n,1\nGS-0005,1\nGS-0006,0\nGS-0005,0\n',
    );
    const run = await genser(['stock', file, '--format', 'legacy', '--json', ...t.flags], t.env);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    const issues = report.issues.map((i: any) => [i.row, i.line, i.code, i.sku]);
    expect(issues).toEqual([
      [2, 3, 'unknown_sku', 'NOPE-1'],
      [3, 4, 'type', 'GS-0004'],
      [4, 5, 'required', undefined],
      [5, 6, 'duplicate_sku', 'GS-0005'],
      [7, 8, 'duplicate_sku', 'GS-0005'],
    ]);
    const unknown = report.issues[0];
    expect(unknown.file).toBe(file);
    expect(unknown.message).toContain('SKU NOPE-1');
    expect(unknown.message).toContain('upload the product first (genser upload');
    expect(report.issues[1].column).toBe('in_stock');
    expect(report.summary).toMatchObject({ rows: 7, invalid: 5, sent: 2, accepted: 2 });
    expect((await get(t.url, '/_sandbox/products/GS-0003?format=legacy')).inStock).toBe(false);
    expect((await get(t.url, '/_sandbox/products/GS-0006?format=legacy')).inStock).toBe(false);
    // Neither duplicate went: GS-0005 was received once, by the upload.
    expect((await get(t.url, '/_sandbox/products/GS-0005?format=legacy')).receivedCount).toBe(1);
  });

  it('reports a processCode FAIL by the stock file row and line (bisected); a later upload of the old feed sees the accepted stock as a change', async () => {
    server = await scriptedServer((req, res) =>
      json(
        res,
        200,
        req.n > 1 && req.body.includes('"GS-0002"')
          ? { ...LEGACY_OK, processCode: 'FAIL', processValue: { message: 'stock of GS-0002 is locked' } }
          : LEGACY_OK,
      ),
    );
    const state = fresh('state');
    const flags = ['--api-url', server.url, '--state', state, '--format', 'legacy'];
    const env = { GENSER_API_KEY: KEY };
    expect((await genser(['upload', LEGACY_FEED, ...flags], env)).code).toBe(0);
    const file = stockFile('sku,availability\nGS-0001,OutOfStock\nGS-0002,out of stock\nGS-0003,InStock\n');
    const run = await genser(['stock', file, '--json', ...flags], env);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.failures).toEqual([
      expect.objectContaining({ file, row: 2, line: 3, sku: 'GS-0002', status: 200 }),
    ]);
    expect(report.failures[0].message).toContain('stock of GS-0002 is locked');
    expect(report.summary).toMatchObject({ rows: 3, accepted: 2, rejected: 1 });
    const legacyBodies = server.requests.slice(1).map((r) => productsOf(r.body).map((p) => p.code));
    expect(legacyBodies[0]).toEqual(['GS-0001', 'GS-0002', 'GS-0003']);
    for (const r of server.requests.slice(1)) expect(r.path).toBe('/searches/products');
    // The refused row is kept for --retry-failed, with its merged payload and the stock file's row.
    const retry = await genser(['upload', '--retry-failed', '--json', ...flags], env);
    expect(retry.code).toBe(1);
    const retried = server.requests.at(-1)!;
    expect(productsOf(retried.body)).toEqual([
      expect.objectContaining({ code: 'GS-0002', isInStock: false }),
    ]);
    expect(JSON.parse(retry.stdout).failures[0]).toMatchObject({ file, row: 2, line: 3 });
    // The stock run is in the target's history.
    expect((await genser(['runs', '--state', state], {})).stdout).toContain(`stock ${file}`);
    // The old feed: GS-0001 changed (its new stock was accepted; GS-0003's was already so), GS-0002 did not.
    const again = await genser(['upload', LEGACY_FEED, ...flags], env);
    expect(again.stderr).toContain('state: 0 new, 1 changed, 11 unchanged');
  });
});

describe('standard target', () => {
  it('sends update_product with only offers.availability changed and says search shows it after the 00:15 batch', async () => {
    server = await scriptedServer((_req, res) => json(res, 200, { accepted: 1 }));
    const flags = ['--api-url', server.url, '--state', fresh('state')];
    const env = { GENSER_API_KEY: KEY };
    expect((await genser(['upload', STANDARD_FEED, ...flags], env)).code).toBe(0);
    const uploaded = new Map(productsOf(server.requests[0].body).map((p) => [p.sku, p]));

    const file = stockFile('sku,in_stock\nGS-0001,false\nGS-0002,yes\n');
    const run = await genser(['stock', file, '--country', 'KR', ...flags], env);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/searchable after the daily batch at 00:15 Asia\/Seoul .*contract 1\.5/);
    const body = JSON.parse(server.requests[1].body);
    expect(body.type).toBe('update_product');
    expect(server.requests[1].path).toBe('/collectors/products');
    const sent = productsOf(server.requests[1].body);
    expect(sent.map((p) => (p.offers as any).availability)).toEqual(['OutOfStock', 'InStock']);
    const first = uploaded.get('GS-0001') as any;
    expect(sent[0]).toEqual({ ...first, offers: { ...first.offers, availability: 'OutOfStock' } });

    // A mapping file names other columns (its map reads the shop's own words).
    const mapping = stockFile(
      JSON.stringify({
        fields: { sku: 'Item', availability: { column: 'Avail', map: { N: 'OutOfStock', P: 'PreOrder' } } },
      }),
      'json',
    );
    const mapped = stockFile('Item;Avail\nGS-0003;P\n');
    const viaMapping = await genser(['stock', mapped, '--mapping', mapping, ...flags], env);
    expect(viaMapping.code).toBe(0);
    expect((productsOf(server.requests[2].body)[0].offers as any).availability).toBe('PreOrder');
  });

  it('reports a 400 by the stock file row and line, and stops at 401 with exit 3', async () => {
    let refuse: 400 | 401 | undefined;
    server = await scriptedServer((req, res) => {
      if (refuse === 401) return json(res, 401, { detail: 'bad key' });
      const graph = productsOf(req.body);
      const bad = graph.findIndex((p) => p.sku === 'GS-0004');
      if (refuse === 400 && bad !== -1)
        return json(res, 400, {
          detail: 'invalid',
          errors: [
            { index: bad, sku: 'GS-0004', pointer: `/@graph/${bad}/offers`, message: 'offer refused' },
          ],
        });
      return json(res, 200, {});
    });
    const flags = ['--api-url', server.url, '--state', fresh('state'), '--retries', '0'];
    const env = { GENSER_API_KEY: KEY };
    expect((await genser(['upload', STANDARD_FEED, ...flags], env)).code).toBe(0);
    const file = stockFile(
      '[{"sku": "GS-0003", "availability": "InStock"}, {"sku": "GS-0004", "in_stock": false}]',
      'json',
    );
    refuse = 400;
    const run = await genser(['stock', file, '--json', ...flags], env);
    expect(run.code).toBe(1);
    const report = JSON.parse(run.stdout);
    expect(report.failures).toEqual([expect.objectContaining({ file, row: 2, sku: 'GS-0004', status: 400 })]);
    expect(report.failures[0].message).toContain('offer refused');
    expect(report.summary).toMatchObject({ accepted: 1, rejected: 1 });

    refuse = 401;
    const denied = await genser(['stock', file, ...flags], env);
    expect(denied.code).toBe(3);
    expect(denied.stderr).not.toContain(KEY);
  });
});

describe('the run itself', () => {
  it('exits 5 while another run holds the target lock', async () => {
    server = await scriptedServer((_req, res) => json(res, 200, {}));
    const state = fresh('state');
    const flags = ['--api-url', server.url, '--state', state];
    const env = { GENSER_API_KEY: KEY };
    expect((await genser(['upload', STANDARD_FEED, ...flags], env)).code).toBe(0);
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 20000)']);
    try {
      const file = readdirSync(state).find((f) => f.endsWith('.sqlite'))!;
      const db = openDatabase(join(state, file));
      db.prepare('INSERT INTO lock (id, pid, host, started, heartbeat) VALUES (1, ?, ?, ?, ?)').run(
        sleeper.pid!,
        hostname(),
        '2026-11-25T01:00:00.000Z',
        new Date().toISOString(),
      );
      db.close();
      const run = await genser(['stock', stockFile('sku,in_stock\nGS-0001,0\n'), ...flags], env);
      expect(run.code).toBe(5);
      expect(run.stderr).toContain(
        `another genser upload or stock run on the same target is running (pid ${sleeper.pid}`,
      );
      expect(server.requests).toHaveLength(1);
    } finally {
      sleeper.kill();
    }
  });

  it('reads the stock file from stdin (-) with --input-type', async () => {
    const t = await sandboxTarget();
    expect((await genser(['upload', LEGACY_FEED, '--format', 'legacy', ...t.flags], t.env)).code).toBe(0);
    // The built CLI in a child process: the in-process sandbox keeps answering meanwhile.
    const child = spawn(
      process.execPath,
      [
        join(root, 'bin', 'genser.js'),
        'stock',
        '-',
        '--input-type',
        'ndjson',
        '--format',
        'legacy',
        ...t.flags,
      ],
      { env: { ...process.env, ...t.env, NO_COLOR: '1' } },
    );
    let stderr = '';
    child.stderr.on('data', (c) => {
      stderr += String(c);
    });
    child.stdin.end('{"sku": "GS-0007", "in_stock": false}\n');
    const code = await new Promise((r) => child.on('exit', r));
    expect(code, stderr).toBe(0);
    expect((await get(t.url, '/_sandbox/products/GS-0007?format=legacy')).inStock).toBe(false);
  });

  it('--sandbox with --state and --sandbox-db: the embedded sandbox the products were uploaded to', async () => {
    const kept = [
      '--sandbox',
      '--state',
      fresh('state'),
      '--sandbox-db',
      `${fresh('sandbox')}.db`,
      '--format',
      'legacy',
    ];
    expect((await genser(['upload', LEGACY_FEED, ...kept], {})).code).toBe(0);
    const run = await genser(['stock', stockFile('sku,in_stock\nGS-0008,0\n'), '--json', ...kept], {});
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).summary).toMatchObject({ rows: 1, accepted: 1 });
  });

  it('needs a target: no api url, or --sandbox without a kept state, is a usage error (exit 2)', async () => {
    const file = stockFile('sku,in_stock\nGS-0001,0\n');
    const noUrl = await genser(['stock', file, '--state', fresh('state')], { GENSER_API_KEY: KEY });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('no product API url');
    const sandboxed = await genser(['stock', file, '--sandbox'], {});
    expect(sandboxed.code).toBe(2);
    expect(sandboxed.stderr).toContain('--state DIR and --sandbox-db FILE');
  });

  it('a dry run merges and reports but sends and records nothing', async () => {
    server = await scriptedServer((_req, res) => json(res, 200, {}));
    const flags = ['--api-url', server.url, '--state', fresh('state')];
    const env = { GENSER_API_KEY: KEY };
    expect((await genser(['upload', STANDARD_FEED, ...flags], env)).code).toBe(0);
    const run = await genser(['stock', stockFile('sku,in_stock\nGS-0001,0\n'), '--dry-run', ...flags], env);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('dry run: 1 row');
    expect(server.requests).toHaveLength(1);
    // Nothing recorded: the same change is still a change for a real run.
    const real = await genser(['stock', stockFile('sku,in_stock\nGS-0001,0\n'), ...flags], env);
    expect(real.stderr).toContain('stock: 1 changed, 0 already so');
  });

  it('on a sharded target, sends each shard its own SKUs with the same --shard, and refuses to start an empty state without it', async () => {
    const t = await sandboxTarget();
    for (const shard of ['1/2', '2/2'])
      expect((await genser(['upload', STANDARD_FEED, '--shard', shard, ...t.flags], t.env)).code).toBe(0);
    const skus = ['GS-0001', 'GS-0002', 'GS-0003', 'GS-0004'];
    const file = stockFile(`sku,in_stock\n${skus.map((s) => `${s},0`).join('\n')}\n`);

    const whole = await genser(['stock', file, ...t.flags], t.env);
    expect(whole.code).toBe(2);
    expect(whole.stderr).toContain("this target's uploads keep their state per shard");
    expect(whole.stderr).toContain('the same --shard I/N');
    expect(
      readdirSync(t.flags[3] as string).filter((f) => !f.includes('-shard-') && f.endsWith('.sqlite')),
    ).toEqual([]);

    const mine = skus.filter((s) => shardOf(s, 2) === 1);
    const one = await genser(['stock', file, '--shard', '1/2', ...t.flags], t.env);
    expect(one.code).toBe(0);
    expect(one.stderr).toContain(
      `stock: shard 1/2: ${mine.length} of 4 rows; ${4 - mine.length} in other shards (not sent)`,
    );
    expect(one.stderr).toContain(`${mine.length} accepted`);
    const two = await genser(['stock', file, '--shard-count', '2', ...t.flags], {
      ...t.env,
      JOB_COMPLETION_INDEX: '1',
    });
    expect(two.code).toBe(0);
    expect(two.stderr).toContain(`stock: shard 2/2: ${4 - mine.length} of 4 rows`);
    await fetch(`${t.url}/_sandbox/batch`, { method: 'POST', headers: { 'x-genser-sandbox': '1' } });
    for (const sku of skus) {
      const p = await get(t.url, `/_sandbox/products/${sku}`);
      expect(p.receivedCount).toBe(2);
      expect(p.data.offers.availability).toBe('OutOfStock');
    }
  });
});
