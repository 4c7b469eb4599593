import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { clearSecrets } from '../../src/shared/secrets.js';
import { startPostgres, stateBackends } from '../helpers/postgres.js';
import { genser } from '../helpers/run-cli.js';
import { json, productsOf, type ScriptedServer, scriptedServer, sleepMs } from './servers.js';

/**
 * A stock batch whose outcome is unknown leaves its SKUs in doubt (docs/nightly.md, "Stock
 * changes"): the service may hold the stock change while the state holds the old payload, so the
 * next upload sends them again, as it does for its own unanswered batches.
 */
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
const FEED = join(root, 'fixtures', 'catalog.csv');
const KEY = 'doubt-test-key-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'genser-doubt-'));
let n = 0;
const fresh = (name: string) => join(dir, `${name}-${++n}`);
const pgServer = await startPostgres();
afterAll(() => pgServer?.stop());
const backends = stateBackends(pgServer, () => fresh('state'));

/** A service that stores every product it receives, then answers as `answer` says (or never). */
async function storingServer(answer: { mode: 'ok' | '500' | 'never' }) {
  const stored = new Map<string, Record<string, unknown>>();
  const server = await scriptedServer((req, res) => {
    for (const p of productsOf(req.body)) stored.set(String(p.sku), p);
    if (answer.mode === 'ok') json(res, 200, { ok: true });
    else if (answer.mode === '500') json(res, 500, { title: 'Internal Server Error' });
    // 'never': the request is stored and left hanging.
  });
  return { server, stored };
}

const availability = (p: Record<string, unknown> | undefined) =>
  (p?.offers as { availability?: string } | undefined)?.availability;

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearSecrets();
});

describe.each(backends)('a stock batch whose outcome is unknown (state in %s)', (_backend, place, skip) => {
  it.skipIf(skip)(
    'a 500 after the service stored it: the next upload of the unchanged feed sends those SKUs again',
    async () => {
      const answer = { mode: 'ok' as 'ok' | '500' | 'never' };
      const s = await storingServer(answer);
      server = s.server;
      const env = { GENSER_API_URL: server.url, GENSER_API_KEY: KEY, GENSER_STATE_DIR: await place() };
      expect((await genser(['upload', FEED], env)).code).toBe(0);
      answer.mode = '500';
      const stock = `${fresh('stock')}.csv`;
      writeFileSync(stock, 'sku,availability\nGS-0001,OutOfStock\nGS-0002,OutOfStock\n');
      const lost = await genser(['stock', stock, '--retries', '0'], env);
      expect(lost.code).toBe(4);
      expect(availability(s.stored.get('GS-0001'))).toBe('OutOfStock');

      answer.mode = 'ok';
      server.requests.length = 0;
      const next = await genser(['upload', FEED], env);
      expect(next.code).toBe(0);
      expect(next.stderr).toContain('state: 0 new, 2 changed, 23 unchanged (not sent)');
      expect(server.requests.flatMap((r) => productsOf(r.body).map((p) => p.sku)).sort()).toEqual([
        'GS-0001',
        'GS-0002',
      ]);
      expect(availability(s.stored.get('GS-0001'))).toBe('InStock');
      // Once accepted, the doubt is over: the run after sends nothing.
      server.requests.length = 0;
      expect((await genser(['upload', FEED], env)).stderr).toContain('0 new, 0 changed, 25 unchanged');
      expect(server.requests).toEqual([]);
    },
    15_000,
  );

  it.skipIf(skip)(
    'a stock run killed (kill -9) while the service holds its batch: the next upload sends those SKUs again',
    async () => {
      const answer = { mode: 'ok' as 'ok' | '500' | 'never' };
      const s = await storingServer(answer);
      server = s.server;
      const env = { GENSER_API_URL: server.url, GENSER_API_KEY: KEY, GENSER_STATE_DIR: await place() };
      expect((await genser(['upload', FEED], env)).code).toBe(0);
      answer.mode = 'never';
      server.requests.length = 0;
      const stock = `${fresh('stock')}.csv`;
      writeFileSync(stock, 'sku,availability\nGS-0003,OutOfStock\n');
      const child = spawn(process.execPath, [bin, 'stock', stock], {
        env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
      });
      const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, sig) => r(sig)));
      const deadline = Date.now() + 8000;
      while (Date.now() < deadline && server.requests.length === 0) await sleepMs(20);
      expect(availability(s.stored.get('GS-0003'))).toBe('OutOfStock');
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');

      answer.mode = 'ok';
      server.requests.length = 0;
      const next = await genser(['upload', FEED], env);
      expect(next.code).toBe(0);
      expect(next.stderr).toContain('state: 0 new, 1 changed, 24 unchanged (not sent)');
      expect(server.requests.flatMap((r) => productsOf(r.body).map((p) => p.sku))).toEqual(['GS-0003']);
      expect(availability(s.stored.get('GS-0003'))).toBe('InStock');
    },
    15_000,
  );
});
