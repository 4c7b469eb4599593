import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { clearSecrets } from '../../src/shared/secrets.js';
import { startPostgres, stateBackends } from '../helpers/postgres.js';
import { genser } from '../helpers/run-cli.js';
import { json, productsOf, type ScriptedServer, scriptedServer, sleepMs } from './servers.js';

/**
 * `--retry-failed` (docs/nightly.md, "Retrying failed rows"): a row not accepted stays owed until
 * it is accepted or superseded by a newer payload, whatever runs in between (a stock run, a
 * retry run killed with kill -9).
 */
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
const KEY = 'retry-test-key-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'genser-owed-'));
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
const PRICE = header.indexOf('price');
const SKU5 = sample[4][header.indexOf('sku')];

function feed(price5?: string): string {
  const rows = sample.map((r, i) => (i === 4 && price5 ? Object.assign([...r], { [PRICE]: price5 }) : r));
  const file = `${fresh('feed')}.csv`;
  writeFileSync(file, `${Papa.unparse([header, ...rows], { newline: '\n' })}\n`);
  return file;
}

/** Rejects SKU5 with a 400 while `mode` is 'reject'; leaves every request hanging while 'never'. */
async function server(mode: { is: 'ok' | 'reject' | 'never' }) {
  return scriptedServer((req, res) => {
    if (mode.is === 'never') return;
    const at = productsOf(req.body).findIndex((p) => p.sku === SKU5);
    if (mode.is === 'reject' && at >= 0)
      return json(res, 400, {
        type: 'about:blank',
        title: 'Bad Request',
        status: 400,
        detail: 'rejected',
        errors: [{ pointer: `/@graph/${at}`, detail: 'bad brand' }],
      });
    json(res, 200, {});
  });
}

const sentSkus = (s: ScriptedServer) => s.requests.flatMap((r) => productsOf(r.body).map((p) => p.sku));

let srv: ScriptedServer | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
  clearSecrets();
});

describe.each(backends)('rows owed to --retry-failed (state in %s)', (_backend, place, skip) => {
  it.skipIf(skip)(
    'stay owed across a stock run and a retry run killed with kill -9, until accepted',
    async () => {
      const mode = { is: 'reject' as 'ok' | 'reject' | 'never' };
      srv = await server(mode);
      const env = { GENSER_API_URL: srv.url, GENSER_API_KEY: KEY, GENSER_STATE_DIR: await place() };
      const file = feed();
      expect((await genser(['upload', file], env)).code).toBe(1);

      // A stock run in between: it is the last run now, and owes nothing itself.
      mode.is = 'ok';
      const stock = `${fresh('stock')}.csv`;
      writeFileSync(stock, 'sku,availability\nGS-0001,OutOfStock\n');
      expect((await genser(['stock', stock], env)).code).toBe(0);

      // A retry run killed while its request hangs.
      mode.is = 'never';
      srv.requests.length = 0;
      const child = spawn(process.execPath, [bin, 'upload', '--retry-failed'], {
        env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
      });
      const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, sig) => r(sig)));
      const deadline = Date.now() + 8000;
      while (Date.now() < deadline && srv.requests.length === 0) await sleepMs(20);
      expect(sentSkus(srv)).toEqual([SKU5]);
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      mode.is = 'ok';
      srv.requests.length = 0;
      const retry = await genser(['upload', '--retry-failed'], env);
      expect(retry.stderr).toContain('retry: 1 row owed, not accepted by run');
      expect(retry.stderr).toContain('1 sent in 1 batch: 1 accepted');
      expect(retry.code).toBe(0);
      expect(sentSkus(srv)).toEqual([SKU5]);

      // Paid: nothing more is owed.
      srv.requests.length = 0;
      const again = await genser(['upload', '--retry-failed'], env);
      expect(again.stderr).toContain('retry: 0 rows owed');
      expect(again.code).toBe(0);
      expect(srv.requests).toEqual([]);
    },
    15_000,
  );

  it.skipIf(skip)(
    'a newer payload supersedes the one owed: accepted by an upload, or matched by the feed',
    async () => {
      const mode = { is: 'ok' as 'ok' | 'reject' | 'never' };
      srv = await server(mode);
      const env = { GENSER_API_URL: srv.url, GENSER_API_KEY: KEY, GENSER_STATE_DIR: await place() };
      expect((await genser(['upload', feed()], env)).code).toBe(0);
      // A price change refused: owed. The next feed goes back to the price the service holds.
      mode.is = 'reject';
      expect((await genser(['upload', feed('12345')], env)).code).toBe(1);
      mode.is = 'ok';
      const back = await genser(['upload', feed()], env);
      expect(back.stderr).toContain('0 new, 0 changed, 25 unchanged');
      srv.requests.length = 0;
      const retry = await genser(['upload', '--retry-failed'], env);
      expect(retry.stderr).toContain('retry: 0 rows owed');
      expect(srv.requests).toEqual([]);

      // Refused again, then another price accepted by a later upload: nothing owed either.
      mode.is = 'reject';
      expect((await genser(['upload', feed('12345')], env)).code).toBe(1);
      mode.is = 'ok';
      expect((await genser(['upload', feed('23456')], env)).code).toBe(0);
      srv.requests.length = 0;
      expect((await genser(['upload', '--retry-failed'], env)).stderr).toContain('retry: 0 rows owed');
      expect(srv.requests).toEqual([]);
    },
    15_000,
  );
});
