import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { genser } from '../helpers/run-cli.js';
import { API_KEY, get, SERVICE_KEY, start } from '../sandbox/helpers.js';
import { type TestService, testService } from './servers.js';

/**
 * `--compress gzip` (docs/networks.md): bodies go with Content-Encoding: gzip, off by default;
 * the sandbox takes gzip under its body cap, answers 415 to an encoding it does not know and
 * 400 to gzip that does not decompress.
 */
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await start({ maxBodyBytes: 64 * 1024 });
});
afterAll(async () => sandbox.close());

const post = (headers: Record<string, string>, body: Buffer) =>
  fetch(`${sandbox.url}/collectors/products`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', apiKey: API_KEY, ...headers },
    body,
  });

describe('--compress gzip', () => {
  it('is off by default; on, the bodies are gzip and much smaller, and the sandbox stores them', async () => {
    let service: TestService | undefined = await testService();
    try {
      const env = { GENSER_API_KEY: API_KEY };
      const state = mkdtempSync(join(tmpdir(), 'genser-gz-'));
      const plain = await genser(
        ['upload', 'fixtures/catalog.csv', '--api-url', service.url, '--state', state],
        env,
      );
      expect(plain.code, plain.stderr).toBe(0);
      expect(service.requests[0].headers['content-encoding']).toBeUndefined();
      const gz = await genser(
        [
          'upload',
          'fixtures/catalog.csv',
          '--api-url',
          service.url,
          '--compress',
          'gzip',
          '--full',
          '--state',
          state,
        ],
        env,
      );
      expect(gz.code, gz.stderr).toBe(0);
      const [a, b] = service.requests;
      expect(b.headers['content-encoding']).toBe('gzip');
      expect(JSON.parse(b.body)['@graph']).toEqual(JSON.parse(a.body)['@graph']);
      expect(b.wireBytes * 4).toBeLessThan(a.wireBytes);
    } finally {
      await service?.close();
      service = undefined;
    }
    const r = await genser(
      [
        'upload',
        'fixtures/catalog.csv',
        '--api-url',
        sandbox.url,
        '--compress',
        'gzip',
        '--state',
        mkdtempSync(join(tmpdir(), 'genser-gz-')),
      ],
      {
        GENSER_API_KEY: API_KEY,
      },
    );
    expect(r.code, r.stderr).toBe(0);
    expect((await get(sandbox.url, '/_sandbox/stats')).products.total).toBe(25);
  });

  it('events go compressed too (GENSER_COMPRESS)', async () => {
    const example = (await genser(['events', 'example', 'view_product'])).stdout;
    const file = join(mkdtempSync(join(tmpdir(), 'genser-gz-')), 'event.json');
    (await import('node:fs')).writeFileSync(file, example);
    const r = await genser(['events', 'send', file, '--base-url', sandbox.url], {
      GENSER_SERVICE_KEY: SERVICE_KEY,
      GENSER_COMPRESS: 'gzip',
    });
    expect(r.code, r.stderr).toBe(0);
  });
});

describe('the sandbox and request encodings', () => {
  it('answers 415 to an encoding it does not know', async () => {
    const res = await post({ 'content-encoding': 'br' }, Buffer.from('{}'));
    expect(res.status).toBe(415);
    expect(((await res.json()) as { detail: string }).detail).toBe(
      'Content-Encoding br is not supported here: send gzip, or no Content-Encoding',
    );
  });

  it('answers 400 to gzip that does not decompress, 413 to gzip that inflates past the cap', async () => {
    expect((await post({ 'content-encoding': 'gzip' }, Buffer.from('not gzip at all'))).status).toBe(400);
    const bomb = gzipSync(Buffer.alloc(1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect((await post({ 'content-encoding': 'gzip' }, bomb)).status).toBe(413);
  });
});
