import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Io, main } from '../../src/cli/main.js';
import { clearSecrets } from '../../src/shared/secrets.js';

/**
 * `genser upload` aimed at the contract sample's `/searches/products` with a standard feed
 * stops with the did-you-mean (exit 2) before anything is sent (src/upload/path-hint.ts).
 */
const fixtures = join(import.meta.dirname, '..', '..', 'fixtures');
const catalog = join(fixtures, 'catalog.csv');
const KEY = 'api-PATHHINT-0a1b2c3d4e';
let requests = 0;
const server = createServer((req, res) => {
  requests++;
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
});
let url = '';
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function genser(args: string[], env: NodeJS.ProcessEnv = {}, feed = catalog) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let err = '';
  stderr.on('data', (c) => {
    err += String(c);
  });
  stdout.resume();
  const io: Io = { stdout, stderr, env: { NO_COLOR: '1', GENSER_API_KEY: KEY, ...env }, exitCode: 0 };
  const code = await main(['node', 'genser', 'upload', feed, ...args], io);
  clearSecrets();
  return { code, stderr: err };
}

describe('upload to the sample request line', () => {
  it('the path or the URL /searches/products with a standard feed: exit 2 with the hint, nothing sent', async () => {
    const byPath = await genser(['--api-url', url, '--path', '/searches/products']);
    expect(byPath.code).toBe(2);
    expect(byPath.stderr).toMatch(/the path \/searches\/products is the legacy v0\.3 endpoint/);
    expect(byPath.stderr).toMatch(/did you mean POST \/collectors\/products\?/);
    const byUrl = await genser([], { GENSER_API_URL: `${url}/searches/products` });
    expect(byUrl.code).toBe(2);
    expect(byUrl.stderr).toMatch(/the URL http:\/\/127\.0\.0\.1:\d+\/searches\/products is the legacy/);
    expect(byUrl.stderr).not.toContain(KEY);
    expect(requests).toBe(0);
  });

  it('a legacy feed to /searches/products, and a standard one to the host alone, are sent', async () => {
    const legacy = await genser(
      ['--api-url', url, '--format', 'legacy', '--path', '/searches/products'],
      {},
      join(fixtures, 'legacy-catalog.csv'),
    );
    expect(legacy.stderr).not.toMatch(/did you mean/);
    expect(legacy.code).toBe(0);
    expect(requests).toBeGreaterThan(0);
    const before = requests;
    const standard = await genser(['--api-url', url]);
    expect(standard.stderr).not.toMatch(/did you mean/);
    expect(standard.code).toBe(0);
    expect(requests).toBeGreaterThan(before);
  });
});
