import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { openDatabase } from '../../src/storage/sqlite.js';
import { startPostgres } from '../helpers/postgres.js';
import { genser } from '../helpers/run-cli.js';

/** `genser state copy FROM TO` (docs/nightly.md, "Moving a state"): SQLite into PostgreSQL and back. */
const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'genser-state-copy-'));
let n = 0;
const fresh = (name: string) => join(dir, `${name}-${++n}`);
const server = await startPostgres();
afterAll(() => server?.stop());

const [header, ...sample] = Papa.parse<string[]>(
  readFileSync(join(root, 'fixtures', 'catalog.csv'), 'utf8'),
  {
    skipEmptyLines: true,
  },
).data;

function feed(rows = sample): string {
  const file = `${fresh('feed')}.csv`;
  writeFileSync(file, `${Papa.unparse([header, ...rows], { newline: '\n' })}\n`);
  return file;
}

let sandbox: RunningSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  clearSecrets();
});

describe.skipIf(!server)('genser state copy', () => {
  it('moves every target and shard with its history from a directory into PostgreSQL and back; runs go on as before', async () => {
    sandbox = await startSandbox({ port: 0, quiet: true });
    const sqlite = fresh('from');
    const env = { GENSER_API_URL: sandbox.url, GENSER_API_KEY: sandbox.apiKey };
    const file = feed();
    for (const shard of ['1/2', '2/2'])
      expect((await genser(['upload', file, '--shard', shard, '--state', sqlite], env)).code).toBe(0);
    const before = JSON.parse((await genser(['runs', '--json', '--state', sqlite], env)).stdout);

    const url = await server!.database();
    const copied = await genser(['state', 'copy', sqlite, url], {});
    expect(copied.code, copied.stderr).toBe(0);
    expect(copied.stderr.match(/state: copied .*shard [12]\/2\): \d+ products, 1 runs/g)).toHaveLength(2);
    // The same history, and the same state: nothing to send.
    expect(JSON.parse((await genser(['runs', '--json', '--state', url], env)).stdout)).toEqual(before);
    for (const shard of ['1/2', '2/2']) {
      const run = await genser(['upload', file, '--shard', shard], { ...env, GENSER_STATE_URL: url });
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).toMatch(/state: 0 new, 0 changed, \d+ unchanged/);
    }
    // The last complete run's mapped columns came along: a feed without one is refused with --strict.
    const seo = header.indexOf('seo_title');
    const drifted = `${fresh('drifted')}.csv`;
    const without = (r: string[]) => r.filter((_, i) => i !== seo);
    writeFileSync(drifted, `${Papa.unparse([without(header), ...sample.map(without)], { newline: '\n' })}\n`);
    const strict = await genser(['upload', drifted, '--shard', '1/2', '--strict', '--max-change', '100%'], {
      ...env,
      GENSER_STATE_URL: url,
    });
    expect(strict.code).toBe(6);
    expect(strict.stderr).toContain('column "seo_title" was mapped in the last complete run');
    // Into a target that has state already: refused, never merged.
    const again = await genser(['state', 'copy', sqlite, url], {});
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already holds state for');

    const back = fresh('back');
    expect((await genser(['state', 'copy', url, back], {})).code).toBe(0);
    // Each SKU's kept price came along both ways (the price-shock guard reads it, not the payload).
    const prices = (place: string) =>
      readdirSync(place)
        .filter((f) => f.endsWith('.sqlite'))
        .sort()
        .map((f) => {
          const db = openDatabase(join(place, f));
          try {
            return db.prepare('SELECT sku, price FROM accepted ORDER BY sku').all();
          } finally {
            db.close();
          }
        });
    const kept = prices(sqlite);
    expect(kept).toHaveLength(2);
    expect(
      kept.flat().filter((r) => typeof (r as { price: unknown }).price === 'number').length,
    ).toBeGreaterThan(5);
    expect(prices(back)).toEqual(kept);
    const run = await genser(['upload', file, '--shard', '1/2', '--state', back], env);
    expect(run.stderr).toMatch(/state: 0 new, 0 changed, \d+ unchanged/);
    expect(
      (JSON.parse((await genser(['runs', '--json', '--state', back], env)).stdout) as unknown[]).length,
    ).toBe(2);
  });

  it('a password on the command line is refused and never printed', async () => {
    const out = await genser(
      ['state', 'copy', fresh('x'), 'postgres://genser:hunter2-secret@127.0.0.1:1/db'],
      {},
    );
    expect(out.code).toBe(2);
    expect(out.stderr).toContain('password in PGPASSWORD or ~/.pgpass');
    expect(out.stderr).not.toContain('hunter2-secret');
    const flag = await genser(['runs', '--state', 'postgres://genser:hunter2-secret@127.0.0.1:1/db'], {});
    expect(flag.code).toBe(2);
    expect(flag.stderr).not.toContain('hunter2-secret');
  });
});

describe.skipIf(!server)('a PostgreSQL state in doctor and config', () => {
  it('doctor reaches the database without making anything; config shows the URL without its password', async () => {
    const url = await server!.database();
    const doctor = await genser(['doctor', '--state', url, '--json'], {
      GENSER_API_URL: 'http://127.0.0.1:1',
    });
    const checks = JSON.parse(doctor.stdout).checks as { step: string; status: string; detail: string }[];
    expect(checks.find((c) => c.step === 'state')).toMatchObject({
      status: 'pass',
      detail: `${url} answers: no genser state yet (the first upload makes its tables)`,
    });
    const withPass = url.replace('genser@', 'genser:pw-9f8e7d6c@');
    const config = await genser(['config', 'upload'], { GENSER_STATE_URL: withPass });
    expect(config.stdout + config.stderr).toContain(url);
    expect(config.stdout + config.stderr).not.toContain('pw-9f8e7d6c');
  });

  it('the config file\'s "state" key takes a postgres:// URL as it is (not as a path under the file)', async () => {
    const url = await server!.database();
    const file = `${fresh('config')}.json`;
    writeFileSync(file, JSON.stringify({ state: url }));
    const doctor = await genser(['doctor', '--config', file, '--json'], {
      GENSER_API_URL: 'http://127.0.0.1:1',
    });
    const checks = JSON.parse(doctor.stdout).checks as { step: string; status: string; detail: string }[];
    expect(checks.find((c) => c.step === 'state')).toMatchObject({
      status: 'pass',
      detail: `${url} answers: no genser state yet (the first upload makes its tables)`,
    });
  });
});
