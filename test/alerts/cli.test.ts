import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { genser } from '../helpers/run-cli.js';

/** upload and stock with --notify, --ping and --status-file, through the real CLI entry. */

interface Hit {
  url: string;
  body: string;
}
const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function receiver(): Promise<{ base: string; hits: Hit[] }> {
  const hits: Hit[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      hits.push({ url: req.url ?? '', body });
      res.end('ok');
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

describe('alerts around a real upload', () => {
  it('a clean upload: start and success pings, a notification with --notify-on always, a status file saying 1', async () => {
    const hook = await receiver();
    const dir = mkdtempSync(join(tmpdir(), 'genser-alerts-'));
    const status = join(dir, 'genser.prom');
    const r = await genser([
      'upload',
      'fixtures/catalog.csv',
      '--sandbox',
      '--notify',
      `${hook.base}/hook/TOKEN-abc`,
      '--notify-on',
      'always',
      '--ping',
      `${hook.base}/ping/uuid`,
      '--status-file',
      status,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(hook.hits.map((h) => h.url).sort()).toEqual(['/hook/TOKEN-abc', '/ping/uuid', '/ping/uuid/start']);
    const note = JSON.parse(hook.hits.find((h) => h.url.startsWith('/hook'))?.body ?? '{}');
    expect(note).toMatchObject({
      command: 'upload',
      exitCode: 0,
      success: true,
      counts: { rows: 25, accepted: 25 },
    });
    expect(note.text).toMatch(
      /^genser upload to \(no service: a dry run or an embedded sandbox\) \(standard\): succeeded/,
    );
    const prom = readFileSync(status, 'utf8');
    expect(prom).toContain(
      'genser_last_run_success{command="upload",target="(no service: a dry run or an embedded sandbox)"} 1',
    );
    expect(prom).toContain('outcome="accepted"} 25');
    expect(`${r.stdout}${r.stderr}`).not.toContain('TOKEN-abc');
  });

  it("a run that fails before it sends (no service at the URL) still notifies and pings /fail; the exit code is the run's", async () => {
    const hook = await receiver();
    const closed = await receiver();
    await new Promise((r) => servers.pop()?.close(r));
    const dir = mkdtempSync(join(tmpdir(), 'genser-alerts-'));
    const r = await genser(
      [
        'upload',
        'fixtures/catalog.csv',
        '--api-url',
        `${closed.base}`,
        '--retries',
        '0',
        '--state',
        dir,
        '--notify',
        `${hook.base}/hook`,
        '--ping',
        `${hook.base}/ping`,
        '--status-file',
        join(dir, 'genser.prom'),
      ],
      { GENSER_API_KEY: 'key-for-the-closed-port' },
    );
    expect(r.code, r.stderr).toBe(4);
    expect(hook.hits.map((h) => h.url).sort()).toEqual(['/hook', '/ping/fail', '/ping/start']);
    const note = JSON.parse(hook.hits.find((h) => h.url === '/hook')?.body ?? '{}');
    expect(note).toMatchObject({ exitCode: 4, success: false, outcome: 'the service was unavailable' });
    expect(note.target.url).toBe(closed.base);
    expect(readFileSync(join(dir, 'genser.prom'), 'utf8')).toMatch(/genser_last_run_exit_code\{[^}]*\} 4/);
  });

  it('a webhook that cannot be reached is one warning; the run still exits 0', async () => {
    const gone = await receiver();
    await new Promise((r) => servers.pop()?.close(r));
    const r = await genser([
      'upload',
      'fixtures/catalog.csv',
      '--sandbox',
      '--notify',
      `${gone.base}/hook`,
      '--notify-on',
      'always',
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      `warning: the notification was not delivered: ${gone.base} could not be reached`,
    );
  });
});
