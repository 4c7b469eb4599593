import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ANSWER_BYTES } from '../../src/http/answer-bound.js';
import { UndiciSender } from '../../src/http/sender.js';
import { describeTransportError } from '../../src/http/transport-error.js';
import { genser } from '../helpers/run-cli.js';

/**
 * Hostile answers are bounded (docs/networks.md): a body past 1 MiB fails at once naming its
 * size, declared or not, instead of filling memory or running to the timeout; a key that no
 * header can carry is a configuration error, never an outage retried.
 */
let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const sender = (url: string, key = 'a-good-key-1234') =>
  new UndiciSender({
    apiUrl: url,
    connections: 1,
    timeoutMs: 60_000,
    userAgent: 't',
    keyHeader: 'apiKey',
    key,
  });

describe('answers past the bound', () => {
  it('a declared 200 MB answer fails at once, naming the size', async () => {
    const url = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(200 * 1024 * 1024) });
      res.write('{"a":"');
    });
    const s = sender(url);
    const err = await s
      .post('/collectors/products', '{}', {}, new AbortController().signal)
      .catch((e: unknown) => e);
    await s.close();
    expect(String((err as Error).message)).toBe(
      `${url}/collectors/products answered 200.0 MiB (Content-Length 209715200), more than the 1.0 MiB an answer may have: not read`,
    );
    const failure = describeTransportError(err);
    expect(failure.config?.message).toContain('answered 200.0 MiB');
    expect(failure.mayHaveLanded).toBe(true);
  });

  it('an endless body stops at 1 MiB: the client closes the connection instead of reading on', async () => {
    // Counted on the server: what it could write before the client stopped reading. A client
    // that read on until its 60 s timeout would also fail the test's own timeout.
    let written = 0;
    let closed!: () => void;
    const gone = new Promise<void>((resolve) => (closed = resolve));
    const url = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      res.on('close', closed);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    const s = sender(url);
    const err = await s.post('/x', '{}', {}, new AbortController().signal).catch((e: unknown) => e);
    await s.close();
    await gone;
    expect((err as Error).message).toContain(
      `more than ${(MAX_ANSWER_BYTES / 1024 / 1024).toFixed(1)} MiB (stopped reading there)`,
    );
    // 1 MiB read, plus what the sockets' buffers held: far below an endless body.
    expect(written).toBeLessThan(32 * 1024 * 1024);
  });

  it('through the CLI: the run stops with exit 2 naming the size, the rows unconfirmed', async () => {
    const url = await serve((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(3 * 1024 * 1024) });
      res.end(Buffer.alloc(3 * 1024 * 1024, 0x20));
    });
    const r = await genser(
      [
        'upload',
        'fixtures/catalog.csv',
        '--api-url',
        url,
        '--full',
        '--json',
        '--state',
        `${process.env.HOME}/hostile-state`,
      ],
      {
        GENSER_API_KEY: 'a-good-key-1234',
      },
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toContain(
      'answered 3.0 MiB (Content-Length 3145728), more than the 1.0 MiB an answer may have',
    );
    expect(r.stderr).not.toMatch(/retry \d/);
    expect(JSON.parse(r.stdout).summary).toMatchObject({ accepted: 0, unconfirmed: 25 });
  });
});

describe('a key that no header can carry', () => {
  it('is refused before anything is sent, without showing it (exit 2)', async () => {
    let requests = 0;
    const url = await serve((req, res) => {
      requests++;
      req.resume();
      res.end('{}');
    });
    const r = await genser(['upload', 'fixtures/catalog.csv', '--api-url', url], {
      GENSER_API_KEY: 'abc\u0001defghijk',
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('the API key from GENSER_API_KEY contains a control or non-Latin-1 character');
    expect(r.stderr).not.toContain('defghijk');
    expect(requests).toBe(0);
  });

  it('reaching the sender all the same, it is a configuration error, not an outage', async () => {
    const url = await serve((req, res) => {
      req.resume();
      res.end('{}');
    });
    const s = sender(url, 'abc\u0001def');
    const err = await s.post('/x', '{}', {}, new AbortController().signal).catch((e: unknown) => e);
    await s.close();
    const failure = describeTransportError(err);
    expect(failure).toMatchObject({ mayHaveLanded: false });
    expect(failure.config?.message).toMatch(/^the request could not be built: invalid apiKey header/);
  });
});
