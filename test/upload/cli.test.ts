import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { gtinCheckDigit } from '../../src/schema/checks.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { genser as run } from '../helpers/run-cli.js';
import { json, problem, productsOf, type ScriptedServer, scriptedServer } from './servers.js';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
const dir = mkdtempSync(join(tmpdir(), 'genser-upload-cli-'));

const fixture = Papa.parse<string[]>(readFileSync(join(root, 'fixtures', 'catalog.csv'), 'utf8'), {
  skipEmptyLines: true,
}).data;
const [header, ...sample] = fixture;
const SKU = header.indexOf('sku');
const PRICE = header.indexOf('price');
const GTIN = header.indexOf('gtin');
/** Row r's own GTIN: the same GTIN on two SKUs is an error (duplicate_gtin). */
const gtinOf = (r: number) => {
  const body = `881${String(r).padStart(9, '0')}`;
  return body + gtinCheckDigit(body);
};

/** A catalog made of the fixture's rows with SKUs C-1..C-n; rows in `bad` get a price that is not a number. */
function catalog(name: string, rows: number, bad: number[] = []): string {
  const out = [header];
  for (let r = 1; r <= rows; r++) {
    const row = [...sample[(r - 1) % sample.length]];
    row[SKU] = `C-${r}`;
    row[GTIN] = gtinOf(r);
    if (bad.includes(r)) row[PRICE] = 'free';
    out.push(row);
  }
  const file = join(dir, name);
  writeFileSync(file, `${Papa.unparse(out)}\n`);
  return file;
}

/** Each run its own upload state: these tests look at one run, not at the delta between runs. */
let states = 0;
function freshState(): string {
  return join(dir, `state-${++states}`);
}

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** In-process run through the real CLI entry, each with a state directory of its own. */
function genser(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return run(args, { GENSER_STATE_DIR: freshState(), ...env });
}

/** A separate process, as cron runs it. */
function spawnGenser(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  started?: (child: ReturnType<typeof spawn>) => void,
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH, NO_COLOR: '1', GENSER_STATE_DIR: freshState(), ...env },
      cwd: dir,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += String(c);
    });
    child.stderr.on('data', (c) => {
      stderr += String(c);
    });
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    started?.(child);
  });
}

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearSecrets();
});

const KEY = 'cli-test-key-42abc';

describe('genser upload (CLI)', () => {
  it('dry run sends nothing and says how many batches and bytes it would send', async () => {
    server = await scriptedServer((_q, res) => json(res, 200, {}));
    const file = catalog('dry.csv', 7);
    const r = await genser(['upload', file, '--dry-run', '--batch-size', '3', '--api-url', server.url], {
      GENSER_API_KEY: KEY,
    });
    expect(r.stderr).toMatch(/dry run: 7 rows, 0 invalid; would send 7 products in 3 batches \(\d+\.\d kB\)/);
    expect(r.code).toBe(0);
    expect(server.requests).toHaveLength(0);
  });

  it('uploads, prints the summary and when products become searchable; --json is one document', async () => {
    server = await scriptedServer((_q, res) => json(res, 200, {}));
    const file = catalog('ok.csv', 5);
    const r = await genser(['upload', file, '--json', '--api-url', server.url, '--country', 'JP'], {
      GENSER_API_KEY: KEY,
    });
    expect(r.stderr).not.toContain('upload:');
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.summary).toMatchObject({ rows: 5, invalid: 0, sent: 5, accepted: 5, batches: 1 });
    expect(doc.searchable).toMatch(
      /^after the daily batch at 00:15 Asia\/Tokyo \(\d{4}-\d\d-\d\d 00:15, in /,
    );
    expect(server.requests[0].headers.apikey).toBe(KEY);
    expect(server.requests[0].headers['user-agent']).toMatch(/^genser\/\d+\.\d+\.\d+/);
    expect(productsOf(server.requests[0].body).map((p) => p.sku)).toEqual([
      'C-1',
      'C-2',
      'C-3',
      'C-4',
      'C-5',
    ]);
  });

  it('invalid rows are not sent and make exit 1; --max-invalid stops before sending anything', async () => {
    server = await scriptedServer((_q, res) => json(res, 200, {}));
    const file = catalog('bad.csv', 6, [2, 4]);
    const over = await genser(['upload', file, '--max-invalid', '1', '--api-url', server.url], {
      GENSER_API_KEY: KEY,
    });
    expect(over.code).toBe(1);
    expect(over.stderr).toContain(
      '2 of 6 rows are invalid, more than the 1 that --max-invalid allows: nothing was sent',
    );
    expect(server.requests).toHaveLength(0);
    const share = await genser(['upload', file, '--max-invalid', '10%', '--api-url', server.url], {
      GENSER_API_KEY: KEY,
    });
    expect(share.stderr).toContain('2 of 6 rows are invalid, more than the 10% that --max-invalid allows');
    expect(server.requests).toHaveLength(0);
    const within = await genser(['upload', file, '--max-invalid', '50%', '--api-url', server.url], {
      GENSER_API_KEY: KEY,
    });
    expect(within.code).toBe(1);
    expect(server.requests).toHaveLength(1);
    expect(productsOf(server.requests[0].body)).toHaveLength(4);
    expect(within.stderr).toMatch(
      /error \S+ row 2 \(line 3\), sku C-2, column price: offers\.price must be a number/,
    );
    expect(within.stderr).toContain('upload: 6 rows, 2 invalid (not sent), 4 sent in 1 batch: 4 accepted');
  });

  it('a rejected product makes exit 1 and is in the report with its row', async () => {
    server = await scriptedServer((q, res) => {
      const products = productsOf(q.body);
      const i = products.findIndex((p) => p.sku === 'C-3');
      if (i >= 0) return problem(res, 400, 'invalid', [{ index: i, sku: 'C-3', message: 'duplicate gtin' }]);
      json(res, 200, {});
    });
    const file = catalog('rej.csv', 4);
    const report = join(dir, 'rej-report.json');
    const r = await genser(['upload', file, '--report', report, '--api-url', server.url], {
      GENSER_API_KEY: KEY,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('row 3 (line 4, sku C-3): rejected (HTTP 400): duplicate gtin');
    const doc = JSON.parse(readFileSync(report, 'utf8'));
    expect(doc.failures).toEqual([
      {
        kind: 'rejected',
        file,
        row: 3,
        line: 4,
        sku: 'C-3',
        status: 400,
        message: 'duplicate gtin',
        batch: 1,
      },
    ]);
    expect(doc.summary).toMatchObject({ accepted: 3, rejected: 1 });
  });

  it('401: exit 3 with a message about the key; retries exhausted: exit 4', async () => {
    server = await scriptedServer((_q, res) => problem(res, 401, 'bad key'));
    const file = catalog('auth.csv', 3);
    const auth = await genser(['upload', file, '--api-url', server.url], { GENSER_API_KEY: KEY });
    expect(auth.code).toBe(3);
    expect(auth.stderr).toContain('genser: the server refused the API key (HTTP 401)');
    expect(auth.stderr).toContain('hint: check GENSER_API_KEY');
    await server.close();
    server = await scriptedServer((_q, res) => problem(res, 503, 'down'));
    const down = await genser(
      [
        'upload',
        file,
        '--api-url',
        server.url,
        '--retries',
        '2',
        '--retry-base',
        '1',
        '--retry-cap',
        '2',
        '--json',
      ],
      { GENSER_API_KEY: KEY },
    );
    expect(down.code).toBe(4);
    expect(server.requests).toHaveLength(3);
    expect(down.stderr).toContain('genser: the service is unavailable');
    const doc = JSON.parse(down.stdout);
    expect(doc.failures.map((f: { row: number; kind: string }) => [f.row, f.kind])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
    ]);
    expect(doc.stopped.reason).toBe('unavailable');
  });

  it('an API url that answers 200 with a web page: exit 2 naming the url, nothing counted as accepted', async () => {
    server = await scriptedServer((_q, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Shop</title>');
    });
    const file = catalog('html.csv', 25);
    const r = await genser(
      ['upload', file, '--api-url', server.url, '--concurrency', '1', '--batch-size', '10'],
      {
        GENSER_API_KEY: KEY,
      },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `genser: ${server.url}/collectors/products answered HTTP 200 with an HTML page, not the service's answer: the URL is probably wrong`,
    );
    expect(r.stderr).toContain('hint: check --api-url and --path');
    expect(r.stderr).toMatch(
      /upload: \d+ rows, 0 invalid \(not sent\), 10 sent in 1 batch: 0 accepted, 0 rejected, 10 failed; \d+ valid rows not sent; /,
    );
    expect(r.stderr).not.toContain('searchable');
  });

  it('a host name that does not resolve: exit 2 at once with the host name, no retries', async () => {
    const file = catalog('dns.csv', 3);
    const r = await genser(['upload', file, '--api-url', 'http://no-such-host.invalid', '--json'], {
      GENSER_API_KEY: KEY,
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /genser: the host name no-such-host\.invalid does not resolve \((ENOTFOUND|EAI_AGAIN)\)/,
    );
    expect(r.stderr).not.toContain('retry');
    const doc = JSON.parse(r.stdout);
    expect(doc.summary).toMatchObject({ requests: 1, retries: 0, sent: 0, notSent: 3 });
    expect(doc.stopped.reason).toBe('endpoint');
  });

  it('bytes that stop decoding mid-feed: exit 2 after the report of what was delivered', async () => {
    server = await scriptedServer((_q, res) => json(res, 200, {}));
    // Valid UTF-8 well past the 64 KiB the encoding is detected from, then a byte that is not.
    const file = catalog('broken-later.csv', 3000);
    writeFileSync(file, Buffer.concat([readFileSync(file), Buffer.from([0xff, 0x0a])]));
    const report = join(dir, 'broken-later.json');
    const r = await genser(
      ['upload', file, '--api-url', server.url, '--batch-size', '500', '--report', report],
      { GENSER_API_KEY: KEY },
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/genser: .*broken-later\.csv: the text is not valid utf-8 .* byte offset \d+/);
    expect(r.stderr).toMatch(
      /upload: [\d,]+ rows, 0 invalid \(not sent\), [\d,]+ sent in \d+ batches: [\d,]+ accepted/,
    );
    const doc = JSON.parse(readFileSync(report, 'utf8'));
    expect(doc.stopped.reason).toBe('input');
    expect(doc.summary.accepted).toBeGreaterThan(0);
    expect(doc.summary.accepted).toBe(server.requests.flatMap((q) => productsOf(q.body)).length);
    // Every row read is accounted for: accepted, or never sent (the rows still in a batch).
    expect(doc.summary.accepted + doc.summary.notSent).toBe(doc.summary.rows);
    expect(doc.failures.every((f: { kind: string }) => f.kind === 'not_sent')).toBe(true);
  });

  it('a feed that fails before its first row is one usage error, no summary of zeros', async () => {
    server = await scriptedServer((_q, res) => json(res, 200, {}));
    const missing = join(dir, 'no-such-feed.csv');
    const r = await genser(['upload', missing, '--api-url', server.url], { GENSER_API_KEY: KEY });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('no-such-feed.csv');
    expect(r.stderr).not.toContain('upload: 0 rows');
    expect(r.stderr).not.toContain('stopped after row');
    expect(server.requests).toHaveLength(0);
    const asJson = await genser(['upload', missing, '--api-url', server.url, '--json'], {
      GENSER_API_KEY: KEY,
    });
    expect(asJson.code).toBe(2);
    expect(JSON.parse(asJson.stdout).error.exitCode).toBe(2);
    // A 401: the rest of the feed is still read, unsent; the stop line does not claim unread rows.
    await server.close();
    server = await scriptedServer((_q, res) => problem(res, 401, 'bad key'));
    const auth = await genser(['upload', catalog('last.csv', 3), '--api-url', server.url], {
      GENSER_API_KEY: KEY,
    });
    expect(auth.code).toBe(3);
    expect(auth.stderr).toContain(
      'stopped; the feed was read to its end (row 3), what came after the stop not sent',
    );
  });

  it('--sandbox counts what landed in words that fit: one product, or several', async () => {
    const one = await genser(['upload', catalog('one.csv', 1), '--sandbox']);
    expect(one.code).toBe(0);
    expect(one.stderr).toContain('upload: 1 row, 0 invalid (not sent), 1 sent in 1 batch: 1 accepted');
    expect(one.stderr).toContain('sandbox: 1 product landed in the embedded sandbox at http://127.0.0.1:');
    expect(one.stderr).toContain('applied it; the sandbox was in memory');
    expect(one.stderr).toContain('--sandbox-db FILE to keep it\n');
    const db = join(dir, 'three.sqlite');
    const three = await genser(['upload', catalog('three.csv', 3), '--sandbox', '--sandbox-db', db]);
    expect(three.code).toBe(0);
    expect(three.stderr).toContain('sandbox: 3 products landed in the embedded sandbox');
    expect(three.stderr).toContain(`applied them; they are kept in ${db}: look at them with`);
  });

  it('refuses a missing url or key, and a key given as a flag value, with exit 2', async () => {
    const file = catalog('usage.csv', 1);
    const noUrl = await genser(['upload', file], { GENSER_API_KEY: KEY });
    expect(noUrl.code).toBe(2);
    expect(noUrl.stderr).toContain('no product API url: set --api-url or GENSER_API_URL');
    const noKey = await genser(['upload', file, '--api-url', 'http://127.0.0.1:9']);
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('no API key: set GENSER_API_KEY, or --api-key-file FILE');
    const flag = await genser([
      'upload',
      file,
      '--api-url',
      'http://127.0.0.1:9',
      '--api-key',
      'flag-secret-99',
    ]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain('the API key is never taken from a flag');
    expect(flag.stderr).not.toContain('flag-secret-99');
    const spaced = join(dir, 'spaced.key');
    writeFileSync(spaced, 'abc def-ghi\n');
    const inner = await genser(['upload', file, '--api-url', 'http://127.0.0.1:9', '--api-key-file', spaced]);
    expect(inner.code).toBe(2);
    expect(inner.stderr).toContain('contains whitespace inside it');
    expect(inner.stderr).not.toContain('def-ghi');
  });
});

describe('genser upload (separate process)', () => {
  const built = existsSync(join(root, 'dist', 'commands', 'upload.js'));

  it('a sentinel key never appears in stdout, stderr, the report or --debug output', async () => {
    expect(built, 'run `npm run build` first').toBe(true);
    const SENTINEL = 'SENTINEL-9d8c7b6a5f4e';
    // The server echoes the key back in its errors, the worst case.
    server = await scriptedServer((q, res) => {
      if (q.n === 1) return problem(res, 503, `overloaded for key ${String(q.headers.apikey)}`);
      const products = productsOf(q.body);
      if (products.some((p) => p.sku === 'C-2'))
        return problem(res, 400, `key ${String(q.headers.apikey)} rejected`, [
          { index: products.findIndex((p) => p.sku === 'C-2'), message: `bad ${String(q.headers.apikey)}` },
        ]);
      json(res, 200, {});
    });
    const file = catalog('sentinel.csv', 3);
    const keyFile = join(dir, 'sentinel.key');
    writeFileSync(keyFile, `${SENTINEL}\n`);
    const report = join(dir, 'sentinel-report.json');
    const r = await spawnGenser([
      'upload',
      file,
      '--api-url',
      server.url,
      '--api-key-file',
      keyFile,
      '--retry-base',
      '1',
      '--debug',
      '--json',
      '--report',
      report,
    ]);
    expect(server.requests[0].headers.apikey).toBe(SENTINEL);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('retry 1/5');
    expect(r.stderr).toContain('debug: upload settings');
    expect(r.stderr).toContain('rejected (HTTP 400): bad ***');
    for (const text of [r.stdout, r.stderr, readFileSync(report, 'utf8')])
      expect(text).not.toContain(SENTINEL);
  });

  it('a key with " and \\ echoed inside JSON, or URL-encoded, is masked in every output', async () => {
    const HOSTILE = 'Zq9"Xw\\Vk/Ju+7%';
    // The server writes the key into its JSON answers (escaped) and into a URL (encoded).
    server = await scriptedServer((q, res) => {
      const key = String(q.headers.apikey);
      const products = productsOf(q.body);
      const at = products.findIndex((p) => p.sku === 'C-2');
      if (at >= 0)
        return problem(
          res,
          400,
          `key ${key} rejected; see https://x.example/k?key=${encodeURIComponent(key)}`,
          [{ index: at, message: `bad ${key} or ${encodeURIComponent(key)}` }],
        );
      json(res, 200, {});
    });
    const report = join(dir, 'hostile-key-report.json');
    const r = await genser(['upload', catalog('hostile-key.csv', 3), '--json', '--report', report], {
      GENSER_API_URL: server.url,
      GENSER_API_KEY: HOSTILE,
    });
    expect(server.requests[0].headers.apikey).toBe(HOSTILE);
    expect(r.code).toBe(1);
    const reportText = readFileSync(report, 'utf8');
    expect(reportText).toContain('bad *** or ***');
    for (const text of [r.stdout, r.stderr, reportText]) {
      // No form of the key, nor any piece of it.
      expect(text).not.toContain('Zq9');
      expect(text).not.toContain('Ju+7');
      expect(text).not.toContain('Ju%2B7');
    }
  });

  it('Ctrl-C: the batch in flight finishes, no new one starts, the summary is printed, exit 130', async () => {
    expect(built, 'run `npm run build` first').toBe(true);
    let child: ReturnType<typeof spawn> | undefined;
    server = await scriptedServer(async (_q, res) => {
      child?.kill('SIGINT');
      await new Promise((r) => setTimeout(r, 300));
      json(res, 200, {});
    });
    const file = catalog('sigint.csv', 20);
    const r = await spawnGenser(
      ['upload', file, '--api-url', server.url, '--batch-size', '2', '--concurrency', '1'],
      { GENSER_API_KEY: KEY },
      (c) => {
        child = c;
      },
    );
    expect(r.code).toBe(130);
    expect(server.requests).toHaveLength(1);
    expect(r.stderr).toContain('interrupted: finishing the requests in flight');
    expect(r.stderr).toMatch(
      /upload: \d+ rows, 0 invalid \(not sent\), 2 sent in \d+ batch(es)?: 2 accepted/,
    );
    expect(r.stderr).toContain('genser: interrupted');
  });

  it('the Quick start: upload fixtures/catalog.csv --sandbox exits 0 and says where the products landed', async () => {
    expect(built, 'run `npm run build` first').toBe(true);
    const r = await spawnGenser(['upload', join(root, 'fixtures', 'catalog.csv'), '--sandbox']);
    expect(r.stderr).toMatch(/sandbox: started an embedded sandbox at http:\/\/127\.0\.0\.1:\d+/);
    expect(r.stderr).toMatch(
      /sandbox: [\d,]+ products landed in the embedded sandbox at http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(r.stderr).toMatch(/upload: \d+ rows, 0 invalid/);
    expect(r.code).toBe(0);
  });
});
