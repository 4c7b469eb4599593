import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { event, get, postEvent, send } from './helpers.js';

// Runs dist/ through bin/genser.js: `npm run build` first.
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

interface Running {
  url: string;
  stderr: () => string;
  stop(signal: NodeJS.Signals): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

function runSandbox(args: string[], env: Record<string, string> = {}): Promise<Running> {
  const child = spawn(process.execPath, [bin, 'sandbox', ...args], {
    env: { ...process.env, NO_COLOR: '1', GENSER_API_KEY: '', GENSER_SERVICE_KEY: '', ...env },
    cwd: tmpdir(),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed; stderr: ${stderr}`)), 10_000);
    const check = () => {
      const m = /^(http:\/\/\S+)\n/.exec(stdout) ?? /^\{"url":"(http:\/\/[^"]+)".*\n/.exec(stdout);
      if (!m) return;
      clearTimeout(timer);
      child.stdout.off('data', check);
      resolve({
        url: m[1],
        stderr: () => stderr,
        stop: async (signal) => {
          child.kill(signal);
          const code = await exited;
          return { code, stdout, stderr };
        },
      });
    };
    child.stdout.on('data', check);
    child.on('exit', () => reject(new Error(`exited early: ${stderr}`)));
  });
}

describe('genser sandbox (the binary)', () => {
  it('prints its URL on stdout, generated keys once on stderr, and exits 0 on SIGTERM', async () => {
    const sb = await runSandbox(['--port', '0']);
    expect(sb.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // stdout (the URL) and stderr (the keys) arrive on separate pipes
    for (let i = 0; i < 100 && !/service key/.test(sb.stderr()); i++)
      await new Promise((r) => setTimeout(r, 20));
    const serviceKey = /service key \(serviceKey\): (\S+)/.exec(sb.stderr())?.[1];
    const apiKey = /api key \(apiKey, x-api-key\): (\S+)/.exec(sb.stderr())?.[1];
    expect(serviceKey).toMatch(/^sbx_svc_[0-9a-f]{32}$/);
    expect(apiKey).toMatch(/^sbx_api_[0-9a-f]{32}$/);
    const headers = { serviceKey: serviceKey!, requestId: 'r-1', 'Idempotency-Key': crypto.randomUUID() };
    expect((await postEvent(sb.url, 'view_product', event('view_product'), headers)).status).toBe(200);
    expect((await get(sb.url, '/_sandbox/stats')).events.total).toBe(1);
    const { code, stdout, stderr } = await sb.stop('SIGTERM');
    expect(code).toBe(0);
    expect(stdout).toBe(`${sb.url}\n`);
    // printed once, and never in the request log
    expect(stderr.split(serviceKey!).length - 1).toBe(1);
    expect(stderr).toMatch(/POST \/actions\/view\/product 200 \d+ms items=1/);
    expect(stderr).not.toMatch(/at .*\.js:\d+/); // no stack trace
  });

  it('takes keys from flags (not printed), keeps data in --db across restarts, and exits 0 on SIGINT', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-sb-cli-'));
    dirs.push(dir);
    const args = [
      '--port',
      '0',
      '--db',
      join(dir, 's.db'),
      '--api-key',
      'k-api-1234',
      '--service-key',
      'k-svc-1234',
    ];
    const first = await runSandbox([...args, '--quiet']);
    const body = [
      {
        code: 'X-1',
        name: 'n',
        brand: { code: 'b', name: 'b' },
        categories: [{ largeCode: 'l', largeName: 'l' }],
        image: { mainUrl: 'https://i.example.com/x.jpg', detailUrls: [] },
        priceInfo: { currency: 'KRW', price: 10, salePrice: 9 },
        createdAt: '2026-01-01',
      },
    ];
    expect((await send(first.url, '/searches/products', body, { 'x-api-key': 'k-api-1234' })).status).toBe(
      200,
    );
    const r1 = await first.stop('SIGINT');
    expect(r1.code).toBe(0);
    expect(r1.stderr).not.toContain('k-api-1234');
    expect(r1.stderr).not.toMatch(/POST \/searches/); // --quiet
    const second = await runSandbox(args);
    expect((await get(second.url, '/_sandbox/products/X-1')).format).toBe('legacy');
    expect((await second.stop('SIGTERM')).code).toBe(0);
  });

  it('--json prints one JSON line with the URL and the generated keys', async () => {
    const sb = await runSandbox(['--port', '0', '--json', '--service-key', 'given-svc-key']);
    const { code, stdout } = await sb.stop('SIGTERM');
    expect(code).toBe(0);
    const doc = JSON.parse(stdout);
    expect(doc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(doc.apiKey).toMatch(/^sbx_api_/);
    expect(doc).not.toHaveProperty('serviceKey');
  });

  it('exits 2 with a one-line message for bad flag values', () => {
    const r = spawnSync(process.execPath, [bin, 'sandbox', '--port', '0', '--fail-rate', '2'], {
      encoding: 'utf8',
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--fail-rate must be a number from 0 to 1/);
    const dir = mkdtempSync(join(tmpdir(), 'genser-sb-bad-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'not.db'), 'this is not a database'.repeat(100));
    const db = spawnSync(process.execPath, [bin, 'sandbox', '--port', '0', '--db', join(dir, 'not.db')], {
      encoding: 'utf8',
    });
    expect(db.status).toBe(2);
    expect(db.stderr).toMatch(/cannot open the database/);
    expect(db.stderr).not.toMatch(/\n\s+at /);
    const c = spawnSync(process.execPath, [bin, 'sandbox', '--country', 'XX'], { encoding: 'utf8' });
    expect(c.status).toBe(2);
    expect(c.stderr).toMatch(/unknown country "XX"/);
  });
});
