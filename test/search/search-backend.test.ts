import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { formatSearchAnswer, searchBackend, searchUrl } from '../../src/search/search-backend.js';
import { ExitCode, ExitError } from '../../src/shared/errors.js';
import { genser } from '../helpers/run-cli.js';
import { envelope, postStandard, product, start } from '../sandbox/helpers.js';

const KEY = 'search-cli-instance-key';

async function failure(p: Promise<unknown>): Promise<ExitError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ExitError);
    return err as ExitError;
  }
  throw new Error('expected a failure');
}

describe('searchBackend (genser search)', () => {
  let sandbox: RunningSandbox;
  beforeAll(async () => {
    sandbox = await start({ instanceKey: KEY });
    const products = [
      product('A-1', {
        name: [
          { '@value': '가죽 토트백', '@language': 'ko' },
          { '@value': 'Leather Tote Bag', '@language': 'en' },
        ],
      }),
    ];
    expect((await postStandard(sandbox.url, envelope(products))).status).toBe(200);
    await sandbox.runBatch();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  it('prints what the sandbox answers, from its endpoint or its bare origin', async () => {
    for (const url of [`${sandbox.url}/client`, `${sandbox.url}/client/`, sandbox.url]) {
      const answer = await searchBackend({ url, instanceKey: KEY, query: '토트백', timeoutMs: 5000 });
      expect(answer).toMatchObject({ type: 'SEARCH', queryText: '토트백', total: 1 });
      expect(answer.products[0]).toMatchObject({ code: 'A-1', name: '가죽 토트백', price: 12000 });
      expect(formatSearchAnswer(answer)).toBe(
        `1 product for "토트백"\n  1. A-1  가죽 토트백  12000 KRW\nrequestId ${answer.requestId}\n`,
      );
    }
    const english = await searchBackend({
      url: sandbox.url,
      instanceKey: KEY,
      query: 'tote',
      language: 'ko',
      timeoutMs: 5000,
    });
    expect(english.products[0].name).toBe('가죽 토트백');
  });

  it('says no products plainly', async () => {
    const answer = await searchBackend({ url: sandbox.url, instanceKey: KEY, query: 'zzz', timeoutMs: 5000 });
    expect(formatSearchAnswer(answer)).toMatch(/^0 products for "zzz"\nrequestId [0-9a-f-]{36}\n$/);
  });

  it('fails with exit 3 on a wrong instance key, without showing it', async () => {
    const err = await failure(
      searchBackend({ url: sandbox.url, instanceKey: 'wrong-one-123', query: 'x', timeoutMs: 5000 }),
    );
    expect(err.exitCode).toBe(ExitCode.auth);
    expect(err.message).toContain('401');
    expect(`${err.message} ${err.hint}`).not.toContain('wrong-one-123');
    expect(`${err.message} ${err.hint}`).not.toContain(KEY);
  });

  it('fails with exit 2 on a bad URL, a wrong path or an empty key', async () => {
    expect(
      (await failure(searchBackend({ url: 'not a url', instanceKey: KEY, query: 'x', timeoutMs: 500 })))
        .exitCode,
    ).toBe(ExitCode.usage);
    expect(
      (await failure(searchBackend({ url: 'ftp://x/', instanceKey: KEY, query: 'x', timeoutMs: 500 })))
        .exitCode,
    ).toBe(ExitCode.usage);
    const notFound = await failure(
      searchBackend({ url: `${sandbox.url}/wrong`, instanceKey: KEY, query: 'x', timeoutMs: 5000 }),
    );
    expect(notFound.exitCode).toBe(ExitCode.usage);
    expect(notFound.hint).toContain('data-endpoint');
    expect(
      (await failure(searchBackend({ url: sandbox.url, instanceKey: ' ', query: 'x', timeoutMs: 500 })))
        .exitCode,
    ).toBe(ExitCode.usage);
    expect(searchUrl('https://search.example.com/api/v1/').href).toBe(
      'https://search.example.com/api/v1/search',
    );
  });

  it('fails with exit 4 when the backend is down, silent, or answers something else', async () => {
    const silent = createServer(() => {});
    const odd = createServer((_req, res) => res.end('{"hello":"world"}'));
    await Promise.all([silent, odd].map((s) => new Promise<void>((r) => s.listen(0, '127.0.0.1', r))));
    const at = (s: typeof silent) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/client`;
    try {
      const timedOut = await failure(
        searchBackend({ url: at(silent), instanceKey: KEY, query: 'x', timeoutMs: 200 }),
      );
      expect(timedOut.exitCode).toBe(ExitCode.unavailable);
      expect(timedOut.message).toContain('no answer within 200 ms');
      const other = await failure(
        searchBackend({ url: at(odd), instanceKey: KEY, query: 'x', timeoutMs: 2000 }),
      );
      expect(other.exitCode).toBe(ExitCode.unavailable);
      expect(other.message).toContain('not a search answer');
    } finally {
      silent.closeAllConnections();
      silent.close();
      odd.close();
    }
    const down = createServer();
    await new Promise<void>((r) => down.listen(0, '127.0.0.1', r));
    const url = at(down);
    await new Promise((r) => down.close(r));
    const refused = await failure(searchBackend({ url, instanceKey: KEY, query: 'x', timeoutMs: 2000 }));
    expect(refused.exitCode).toBe(ExitCode.unavailable);
    expect(refused.message).toContain('ECONNREFUSED');
    const failing = await start({ instanceKey: KEY, faults: { failRate: 1, failStatus: 503 } });
    try {
      const unavailable = await failure(
        searchBackend({ url: failing.url, instanceKey: KEY, query: 'x', timeoutMs: 2000 }),
      );
      expect(unavailable.exitCode).toBe(ExitCode.unavailable);
      expect(unavailable.message).toMatch(/503: service temporarily unavailable/);
    } finally {
      await failing.close();
    }
  });
});

describe('genser search prints a hostile answer escaped', () => {
  it('a name with terminal escapes or CR/LF cannot clear the screen or start a CI command line', async () => {
    const hostile = createServer((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end(
        JSON.stringify({
          type: 'SEARCH',
          requestId: 'r\x1b]0;title\x07',
          queryText: 'q',
          total: 1,
          products: [
            { code: 'A\r\n::error::code', name: 'Bag\x1b[2J\n::error::pwned', price: 1, currency: 'KRW' },
          ],
        }),
      );
    });
    await new Promise<void>((r) => hostile.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/client`;
      const ran = await genser(['search', 'q', '--url', url], { GENSER_INSTANCE_KEY: KEY });
      expect(ran.code).toBe(0);
      expect(ran.stdout).not.toMatch(/[\x1b\x07\r]/);
      expect(ran.stdout).not.toMatch(/^::error::/m);
      expect(ran.stdout).toContain('A\\x0d\\x0a::error::code  Bag\\x1b[2J\\x0a::error::pwned  1 KRW');
      expect(ran.stdout).toContain('requestId r\\x1b]0;title\\x07');
      // --json keeps the data as the backend sent it (JSON escapes it).
      const json = await genser(['search', 'q', '--url', url, '--json'], { GENSER_INSTANCE_KEY: KEY });
      expect(JSON.parse(json.stdout).products[0].name).toBe('Bag\x1b[2J\n::error::pwned');
    } finally {
      hostile.close();
    }
  });
});
