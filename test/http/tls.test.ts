import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/storage/sqlite.js';
import { genser } from '../helpers/run-cli.js';
import { hasOpenssl, makePki, type Pki } from './pki.js';
import { type TestService, testService } from './servers.js';

/**
 * Certificate and protocol mismatches are configuration errors (docs/networks.md): no retries,
 * exit 2, one line naming the host, what is wrong and the fix; the rows are not sent and the
 * state keeps no unanswered batch. `--ca-file` adds a company CA to Node's own.
 */
if (!hasOpenssl) console.warn('skipped: the certificate tests need openssl (installed by .ci/run)');

const KEY = 'tls-test-key-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'genser-tls-'));
const feed = join(dir, 'catalog.csv');
// Three valid rows of the shipped example catalog.
writeFileSync(feed, readFileSync('fixtures/catalog.csv', 'utf8').split('\n').slice(0, 4).join('\n'));

let pki: Pki;
let service: TestService | undefined;
beforeAll(() => {
  if (hasOpenssl) pki = makePki();
});
afterEach(async () => {
  await service?.close();
  service = undefined;
});
afterAll(() => undefined);

function upload(url: string, ...more: string[]) {
  return genser(
    ['upload', feed, '--api-url', url, '--retry-base', '1', '--state', join(dir, 'state'), ...more],
    {
      GENSER_API_KEY: KEY,
    },
  );
}

function inflightRows(): number {
  let n = 0;
  for (const f of readdirSync(join(dir, 'state')).filter((f) => f.endsWith('.sqlite'))) {
    const db = openDatabase(join(dir, 'state', f));
    n += Number(db.prepare<{ n: number }>('SELECT count(*) AS n FROM inflight').get()?.n);
    db.close();
  }
  return n;
}

describe.skipIf(!hasOpenssl)('certificates and protocols', () => {
  const cases: [string, (p: Pki) => { key: string; cert: string }, RegExp][] = [
    [
      'self-signed',
      (p) => p.selfSigned,
      /the certificate of localhost is self-signed \(subject localhost, issued by localhost\), and not trusted/,
    ],
    [
      'signed by an unknown CA',
      (p) => p.good,
      /the certificate of localhost is not trusted: its issuer Genser Test CA is not a known CA/,
    ],
    [
      'expired',
      (p) => p.expired,
      /the certificate of localhost expired on \d{4}-\d{2}-\d{2} \(\d+ days ago\)/,
    ],
    [
      'issued for another name',
      (p) => p.otherName,
      /the certificate of localhost is issued for other\.example, www\.other\.example, not localhost/,
    ],
  ];
  for (const [what, cert, said] of cases)
    it(`a certificate ${what}: exit 2 at once, one line, nothing sent, no unanswered batch`, async () => {
      service = await testService(cert(pki));
      const r = await upload(
        service.url,
        '--json',
        ...(what === 'signed by an unknown CA' ? [] : ['--ca-file', pki.caFile]),
      );
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(said);
      expect(r.stderr).not.toMatch(/retry \d|may have landed|unavailable/);
      expect(service.requests).toHaveLength(0);
      const doc = JSON.parse(r.stdout);
      expect(doc.summary).toMatchObject({ sent: 0, notSent: 3, unconfirmed: 0, retries: 0 });
      expect(inflightRows()).toBe(0);
    });

  it('--ca-file trusts the company CA: the upload goes through', async () => {
    service = await testService(pki.good);
    const r = await upload(service.url, '--ca-file', pki.caFile, '--full');
    expect(r.code, r.stderr).toBe(0);
    expect(service.requests).toHaveLength(1);
  });

  it('GENSER_CA_FILE does the same; a file without a certificate is a usage error naming it', async () => {
    service = await testService(pki.good);
    const ok = await genser(['upload', feed, '--api-url', service.url, '--state', join(dir, 'state2')], {
      GENSER_API_KEY: KEY,
      GENSER_CA_FILE: pki.caFile,
    });
    expect(ok.code, ok.stderr).toBe(0);
    const junk = join(dir, 'junk.pem');
    writeFileSync(junk, 'not a certificate\n');
    const bad = await upload(service.url, '--ca-file', junk);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(`the CA file ${junk} (--ca-file) holds no PEM certificate`);
  });

  it('https:// to a plain-HTTP port: exit 2, the scheme named as the fix', async () => {
    service = await testService();
    const r = await upload(service.url.replace('http:', 'https:'));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(
      /localhost:\d+ does not speak TLS \(https\) there: it looks like a plain-HTTP port/,
    );
    expect(r.stderr).toContain('use http:// for this port');
    expect(r.stderr).not.toMatch(/retry \d|may have landed/);
    expect(service.requests).toHaveLength(0);
  });
});
