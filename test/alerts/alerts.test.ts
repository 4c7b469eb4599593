import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  labelValue,
  notifyBody,
  pingUrl,
  RunAlerts,
  type RunReport,
  reportText,
  statusFileText,
} from '../../src/alerts/index.js';
import { memoryLogger } from '../../src/shared/logger.js';

const report = (over: Partial<RunReport> = {}): RunReport => ({
  command: 'upload',
  target: { url: 'https://api.example.com', format: 'standard' },
  exitCode: 1,
  outcome: 'rows the service rejected',
  counts: { rows: 1000, invalid: 0, accepted: 990, rejected: 10, failed: 0 },
  problems: [{ file: 'feed.csv', row: 12, line: 13, sku: 'A-12', message: 'offers.price: must be a number' }],
  startedAt: new Date('2026-11-26T03:00:00Z'),
  durationMs: 61_500,
  ...over,
});

interface Received {
  method: string;
  url: string;
  type: string | undefined;
  body: string;
}

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** A webhook receiver on 127.0.0.1 that answers `status` and keeps what it got. */
async function receiver(status = 200): Promise<{ base: string; got: Received[] }> {
  const got: Received[] = [];
  const server = createServer((req: IncomingMessage, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      got.push({ method: req.method ?? '', url: req.url ?? '', type: req.headers['content-type'], body });
      res.statusCode = status;
      res.end('ok');
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got };
}

const http = { timeoutMs: 5_000 };

describe('the run report in words', () => {
  it('says what ran, how it ended, the counts and the first problems, one line each', () => {
    const text = reportText(report());
    expect(text.split('\n')).toEqual([
      'genser upload to https://api.example.com (standard): FAILED with exit 1 (rows the service rejected)',
      '1,000 rows, 990 accepted, 10 rejected',
      '- feed.csv, row 12, SKU A-12: offers.price: must be a number',
    ]);
    expect(reportText(report({ exitCode: 0, outcome: 'all sent rows accepted' }))).toMatch(/: succeeded \(/);
  });

  it('escapes what came from outside and shortens a huge value, saying its length', () => {
    const evil = `\u001b[2J::error::wiped\r\n${'x'.repeat(100_000)}`;
    const text = reportText(report({ problems: [{ sku: '\u001b]0;pwn\u0007', message: evil }] }));
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
    expect(text.split('\n')).toHaveLength(3);
    expect(text).toContain('\\x1b[2J::error::wiped\\x0d\\x0a');
    expect(text).toContain('(100,020 characters)');
    expect(text.length).toBeLessThan(1_000);
  });

  it('names five problems and counts the rest', () => {
    const problems = Array.from({ length: 8 }, (_, i) => ({ row: i + 1, message: `bad ${i}` }));
    const body = notifyBody(report({ problems }));
    expect(body.problems).toHaveLength(5);
    expect(String(body.text)).toContain('- and 3 more problem(s)');
    expect(body).toMatchObject({ success: false, exitCode: 1, startedAt: '2026-11-26T03:00:00.000Z' });
  });
});

describe('heartbeat URLs in the style of healthchecks.io', () => {
  it('adds /start and /fail to the path, before the query', () => {
    expect(pingUrl('https://hc.example/ping/abc', 'success')).toBe('https://hc.example/ping/abc');
    expect(pingUrl('https://hc.example/ping/abc/', 'start')).toBe('https://hc.example/ping/abc/start');
    expect(pingUrl('https://hc.example/ping/abc?rid=7', 'fail')).toBe(
      'https://hc.example/ping/abc/fail?rid=7',
    );
  });
});

describe('the status file (Prometheus textfile collector)', () => {
  it('holds one gauge per figure, with labels escaped as the format asks', () => {
    const text = statusFileText(
      report({ target: { url: 'https://a.example/"x"\\y', format: 'standard', shard: '2/4' } }),
    );
    const samples = text.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    for (const line of samples)
      expect(line).toMatch(/^genser_[a-z_]+\{([a-z]+="([^"\\\n]|\\.)*",?)+\} -?[0-9.]+$/);
    const base = 'command="upload",target="https://a.example/\\"x\\"\\\\y",shard="2/4"';
    expect(samples).toContain(`genser_last_run_success{${base}} 0`);
    expect(samples).toContain(`genser_last_run_exit_code{${base}} 1`);
    expect(samples).toContain(`genser_last_run_end_timestamp_seconds{${base}} 1795662061`);
    expect(samples).toContain(`genser_last_run_rows{${base},outcome="rejected"} 10`);
    expect(labelValue('a\nb')).toBe('a\\nb');
  });

  it('replaces the file whole, leaving no temporary file; a failure to write is one warning', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-status-'));
    const file = join(dir, 'genser.prom');
    writeFileSync(file, 'old\n');
    const log = memoryLogger();
    await new RunAlerts({ notifyOn: 'failure', statusFile: file }, http, log).finished(
      report({ exitCode: 0 }),
    );
    expect(readFileSync(file, 'utf8')).toContain('genser_last_run_success{command="upload"');
    expect(readdirSync(dir)).toEqual(['genser.prom']);
    const missing = join(dir, 'no-such-folder', 'genser.prom');
    await new RunAlerts({ notifyOn: 'failure', statusFile: missing }, http, log).finished(report());
    expect(existsSync(missing)).toBe(false);
    expect(log.lines).toEqual([
      expect.stringMatching(/^warning: the status file .* was not written: ENOENT/),
    ]);
  });
});

describe('the webhook and the heartbeat, against a real receiver', () => {
  it('notifies on failure by default, on success only with --notify-on always', async () => {
    const hook = await receiver();
    const log = memoryLogger();
    const alerts = (notifyOn: 'failure' | 'always') =>
      new RunAlerts({ notify: `${hook.base}/services/T0/SECRET-TOKEN`, notifyOn }, http, log);
    await alerts('failure').finished(report({ exitCode: 0 }));
    expect(hook.got).toHaveLength(0);
    await alerts('failure').finished(report());
    await alerts('always').finished(report({ exitCode: 0 }));
    expect(hook.got.map((g) => [g.method, g.url, g.type])).toEqual([
      ['POST', '/services/T0/SECRET-TOKEN', 'application/json'],
      ['POST', '/services/T0/SECRET-TOKEN', 'application/json'],
    ]);
    const first = JSON.parse(hook.got[0].body);
    expect(first.text).toMatch(
      /^genser upload to https:\/\/api\.example\.com \(standard\): FAILED with exit 1/,
    );
    expect(first.counts).toEqual(report().counts);
    expect(JSON.parse(hook.got[1].body).success).toBe(true);
    expect(log.lines).toEqual([]);
  });

  it('pings /start, then the URL on success or /fail on failure, with the summary as body', async () => {
    const hc = await receiver();
    const alerts = new RunAlerts({ notifyOn: 'failure', ping: `${hc.base}/ping/uuid` }, http, memoryLogger());
    await alerts.started();
    await alerts.finished(report({ exitCode: 0 }));
    await alerts.finished(report({ exitCode: 4 }));
    expect(hc.got.map((g) => g.url)).toEqual(['/ping/uuid/start', '/ping/uuid', '/ping/uuid/fail']);
    expect(hc.got[2].body).toContain('FAILED with exit 4');
  });

  it('a webhook that fails or cannot be reached is a warning naming only the origin, never the token', async () => {
    const broken = await receiver(500);
    const log = memoryLogger();
    const settings = { notify: `${broken.base}/hook/SECRET-TOKEN`, notifyOn: 'always' as const };
    await new RunAlerts(settings, http, log).finished(report());
    // A port nothing listens on: the server above, closed.
    const closed = await receiver();
    await new Promise((r) => servers.pop()?.close(r));
    const gone = { notifyOn: 'failure' as const, ping: `${closed.base}/ping/SECRET-TOKEN` };
    await new RunAlerts(gone, http, log).started();
    expect(log.lines).toEqual([
      `warning: the notification was not delivered: ${broken.base} answered HTTP 500; the run's exit code is unchanged`,
      `warning: the start ping was not delivered: ${closed.base} could not be reached (ECONNREFUSED)`,
    ]);
    expect(log.lines.join('\n')).not.toContain('SECRET-TOKEN');
  });
});
