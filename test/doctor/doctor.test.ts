import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockCheck } from '../../src/doctor/host.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { genser } from '../helpers/run-cli.js';
import { hasOpenssl, makePki } from '../http/pki.js';
import { hasTinyproxy, startTinyproxy } from '../http/proxies.js';
import { type TestService, testService } from '../http/servers.js';
import { API_KEY, get, SERVICE_KEY, start } from '../sandbox/helpers.js';

/**
 * `genser doctor` (docs/networks.md): every step against real servers on 127.0.0.1; the key
 * check stores nothing in the sandbox; --json is one document; the exit code is the first
 * failing check's.
 */
const state = () => mkdtempSync(join(tmpdir(), 'genser-doctor-'));
let sandbox: RunningSandbox;
beforeAll(async () => {
  sandbox = await start({ instanceKey: 'sbx_ins_doctor' });
});
afterAll(async () => {
  await sandbox.close();
});

type Doc = {
  ok: boolean;
  exitCode: number;
  checks: { step: string; host?: string; status: string; detail: string }[];
};
const steps = (doc: Doc, host?: string) =>
  doc.checks.filter((c) => (host ? c.host?.startsWith(host) : true)).map((c) => `${c.step} ${c.status}`);

describe('genser doctor', () => {
  it('all three hosts of the sandbox pass, the keys are proved, and nothing is stored', async () => {
    const r = await genser(
      [
        'doctor',
        '--api-url',
        sandbox.url,
        '--base-url',
        sandbox.url,
        '--url',
        sandbox.url,
        '--instance-key',
        'sbx_ins_doctor',
        '--state',
        state(),
        '--json',
      ],
      { GENSER_API_KEY: API_KEY, GENSER_SERVICE_KEY: SERVICE_KEY },
    );
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as Doc;
    expect(doc.ok).toBe(true);
    expect(steps(doc).slice(0, 4)).toEqual(['node pass', 'sqlite pass', 'state pass', 'lock pass']);
    for (const role of ['API', 'events', 'search'])
      expect(steps(doc, role)).toEqual([
        'proxy pass',
        'dns pass',
        'tcp pass',
        'http pass',
        'key pass',
        'clock pass',
      ]);
    expect(doc.checks.find((c) => c.step === 'key' && c.host?.startsWith('API'))?.detail).toBe(
      'the API key was accepted (HTTP 400 to a request that stores nothing)',
    );
    const stats = await get(sandbox.url, '/_sandbox/stats');
    expect(stats.products.total).toBe(0);
    expect(stats.events.total).toBe(0);
  });

  it('a wrong key: exit 3, the key step names it', async () => {
    const r = await genser(['doctor', '--api-url', sandbox.url, '--state', state()], {
      GENSER_API_KEY: 'not-the-right-key-000',
    });
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/FAIL key {4}the API key was refused \(HTTP 401\)/);
    expect(r.stdout).not.toContain('not-the-right-key-000');
    expect(r.stdout).toContain('doctor: 1 check failed (exit 3)');
  });

  it('nothing listening: exit 4 at the TCP step; no host at all: exit 2', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise<void>((r) => server.close(() => r()));
    const r = await genser(['doctor', '--api-url', `http://127.0.0.1:${port}`, '--state', state()]);
    expect(r.code).toBe(4);
    expect(r.stdout).toContain(`FAIL tcp    cannot connect to 127.0.0.1:${port} (ECONNREFUSED)`);
    const none = await genser(['doctor', '--state', state(), '--json']);
    expect(none.code).toBe(2);
    expect(JSON.parse(none.stdout).checks.at(-1)).toMatchObject({ step: 'hosts', status: 'fail' });
  });

  it('the clock against the Date header', () => {
    const now = new Date('2026-11-26T12:00:00Z');
    expect(clockCheck('Thu, 26 Nov 2026 12:00:01 GMT', now)).toMatchObject({
      status: 'pass',
      detail: 'in step with the server',
    });
    expect(clockCheck('Thu, 26 Nov 2026 11:59:00 GMT', now)).toMatchObject({
      status: 'warn',
      detail: '60 s ahead of the server',
    });
    expect(clockCheck('Thu, 26 Nov 2026 12:10:00 GMT', now)).toMatchObject({
      status: 'fail',
      detail: '600 s behind the server',
      exitCode: 2,
    });
  });

  it('a server whose clock is 10 minutes off: the clock step fails (exit 2)', async () => {
    let server: Server | undefined;
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(400, {
        date: new Date(Date.now() - 600_000).toUTCString(),
        'content-type': 'application/json',
      });
      res.end('{}');
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const r = await genser(['doctor', '--api-url', url, '--state', state()], { GENSER_API_KEY: API_KEY });
    await new Promise<void>((r) => server!.close(() => r()));
    expect(r.code).toBe(2);
    expect(r.stdout).toMatch(/FAIL clock {2}(599|600|601) s ahead of the server/);
  });
});

describe.skipIf(!hasOpenssl)('genser doctor and TLS', () => {
  let service: TestService;
  const pki = hasOpenssl ? makePki() : undefined;
  afterAll(async () => service?.close());

  it('reads the certificate: subject, issuer, days to expiry; untrusted without --ca-file (exit 2)', async () => {
    service = await testService(pki!.good);
    const bad = await genser(['doctor', '--api-url', service.url, '--state', state()]);
    expect(bad.code).toBe(2);
    expect(bad.stdout).toMatch(
      /FAIL tls {4}the certificate of localhost is not trusted: its issuer Genser Test CA is not a known CA/,
    );
    const ok = await genser([
      'doctor',
      '--api-url',
      service.url,
      '--state',
      state(),
      '--ca-file',
      pki!.caFile,
    ]);
    expect(ok.code, ok.stdout).toBe(0);
    expect(ok.stdout).toMatch(
      /ok {3}tls {4}TLSv1\.3, subject good, issued by Genser Test CA, expires \d{4}-\d{2}-\d{2} \((29|30) days\)/,
    );
  });
});

describe.skipIf(!hasTinyproxy)('genser doctor through a proxy', () => {
  it('says the proxy is used, resolves the proxy, opens the tunnel', async () => {
    const tiny = await startTinyproxy();
    try {
      const r = await genser(['doctor', '--api-url', sandbox.url, '--state', state(), '--json'], {
        GENSER_API_KEY: API_KEY,
        HTTP_PROXY: tiny.url,
      });
      expect(r.code, r.stdout).toBe(0);
      const doc = JSON.parse(r.stdout) as Doc;
      const port = new URL(sandbox.url).port;
      expect(doc.checks.find((c) => c.step === 'proxy')?.detail).toBe(`through ${tiny.url} (HTTP_PROXY)`);
      expect(doc.checks.find((c) => c.step === 'tcp')?.detail).toMatch(
        new RegExp(`^tunnel to 127\\.0\\.0\\.1:${port} opened by the proxy`),
      );
      const bypass = await genser(['doctor', '--api-url', sandbox.url, '--state', state(), '--json'], {
        GENSER_API_KEY: API_KEY,
        HTTP_PROXY: tiny.url,
        no_proxy: '127.0.0.1',
      });
      expect(JSON.parse(bypass.stdout).checks.find((c: { step: string }) => c.step === 'proxy').detail).toBe(
        'direct: no_proxy lists 127.0.0.1',
      );
    } finally {
      await tiny.stop();
    }
  });
});
