import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/storage/sqlite.js';
import { genser } from '../helpers/run-cli.js';
import { json, type ScriptedServer, scriptedServer, sleepMs } from './servers.js';

/**
 * The run lock against real processes (docs/nightly.md, "The run lock"): every way a run ends
 * releases it, a lock of another host expires with its heartbeat, and runs started together get
 * exit 0 or 5, never an SQLite error.
 */
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
const dir = mkdtempSync(join(tmpdir(), 'genser-lock-'));
let n = 0;
const fresh = (name: string) => join(dir, `${name}-${++n}`);

const [header, ...sample] = Papa.parse<string[]>(
  readFileSync(join(root, 'fixtures', 'catalog.csv'), 'utf8'),
  {
    skipEmptyLines: true,
  },
).data;
const csv = (rows = sample) => `${Papa.unparse([header, ...rows], { newline: '\n' })}\n`;
const feedFile = (text = csv()) => {
  const file = `${fresh('feed')}.csv`;
  writeFileSync(file, text);
  return file;
};

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const accepting = () => scriptedServer((_req, res) => json(res, 200, { ok: true }));
const stateFile = (stateDir: string) =>
  join(stateDir, readdirSync(stateDir).find((f) => f.endsWith('.sqlite'))!);

function lockRows(stateDir: string): { pid: number; host: string }[] {
  const db = openDatabase(stateFile(stateDir));
  try {
    return db.prepare<{ pid: number; host: string }>('SELECT pid, host FROM lock').all();
  } finally {
    db.close();
  }
}

describe('the run lock, with real processes', () => {
  it('a run stopped by SIGTERM while it reads the feed releases its lock', async () => {
    server = await accepting();
    const stateDir = fresh('term');
    const env = { GENSER_API_URL: server.url, GENSER_API_KEY: 'lock-key-123456', GENSER_STATE_DIR: stateDir };
    expect((await genser(['upload', feedFile()], env)).code).toBe(0);
    // The nightly run reads its feed from a pipe whose writer stays open: it waits mid-read.
    const fifo = `${fresh('fifo')}.csv`;
    execFileSync('mkfifo', [fifo]);
    const child = spawn(process.execPath, [bin, 'upload', fifo], {
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
    });
    const exited = new Promise<NodeJS.Signals | null>((r) => child.on('exit', (_c, sig) => r(sig)));
    const fh = await open(fifo, 'w');
    const text = csv();
    await fh.write(text.slice(0, text.length / 2));
    const deadline = Date.now() + 8000;
    while (Date.now() < deadline && !lockRows(stateDir).some((r) => r.pid === child.pid)) await sleepMs(20);
    expect(lockRows(stateDir)).toEqual([expect.objectContaining({ pid: child.pid })]);
    await sleepMs(200);
    child.kill('SIGTERM');
    expect(await exited).toBe('SIGTERM');
    await fh.close().catch(() => {});
    expect(lockRows(stateDir)).toEqual([]);
  }, 60_000);

  it("another host's lock stands while its heartbeat is fresh (exit 5, its age said) and is taken over once it is not", async () => {
    server = await accepting();
    const stateDir = fresh('host');
    const env = { GENSER_API_URL: server.url, GENSER_API_KEY: 'lock-key-123456', GENSER_STATE_DIR: stateDir };
    const file = feedFile();
    expect((await genser(['upload', file], env)).code).toBe(0);
    const hold = (minutesAgo: number) => {
      const db = openDatabase(stateFile(stateDir));
      db.prepare('INSERT INTO lock (id, pid, host, started, heartbeat) VALUES (1, 7, ?, ?, ?)').run(
        'nightly-29384-x7k2p',
        '2026-11-25T03:00:00.000Z',
        new Date(Date.now() - minutesAgo * 60_000).toISOString(),
      );
      db.close();
    };
    hold(3);
    const held = await genser(['upload', file], env);
    expect(held.code).toBe(5);
    expect(held.stderr).toContain(
      'pid 7 on nightly-29384-x7k2p, started 2026-11-25T03:00:00.000Z; last heartbeat 3 min ago',
    );
    expect(held.stderr).toContain('loses it 5 min after its last heartbeat');
    const db = openDatabase(stateFile(stateDir));
    db.exec('DELETE FROM lock');
    db.close();
    hold(90);
    const next = await genser(['upload', file], env);
    expect(next.code).toBe(0);
    expect(next.stderr).toContain(
      'state: took over the lock of a run that stopped renewing it (pid 7 on nightly-29384-x7k2p, started 2026-11-25T03:00:00.000Z; last heartbeat 90 min ago',
    );
    expect(lockRows(stateDir)).toEqual([]);
  }, 60_000);

  it('ten processes opening a new state at once: one holds the lock, the others exit 5, none fails on SQLite', async () => {
    // Each process opens the target's state (new: made by whichever is first) and takes the lock.
    const script = `
      import { SqliteState } from ${JSON.stringify(join(root, 'dist', 'upload', 'state', 'sqlite-state.js'))};
      try {
        const s = await SqliteState.open(process.argv[1], { apiUrl: 'https://api.example.com', format: 'standard', keyFingerprint: '' });
        await s.lock();
        await new Promise((r) => setTimeout(r, 800));
        await s.close();
        console.log('0');
      } catch (e) { console.log(String(e.exitCode ?? 70) + ' ' + e.message); }`;
    for (let round = 0; round < 1; round++) {
      const stateDir = mkdtempSync(join(dir, 'race-'));
      const outs = await Promise.all(
        Array.from(
          { length: 10 },
          () =>
            new Promise<string>((resolve) => {
              const child = spawn(process.execPath, ['--input-type=module', '-e', script, stateDir]);
              let out = '';
              child.stdout.on('data', (c) => {
                out += String(c);
              });
              child.on('close', () => resolve(out.trim()));
            }),
        ),
      );
      const codes = outs.map((o) => o.split(' ')[0]);
      expect(outs.filter((o) => !/^(0|5 another genser upload)/.test(o))).toEqual([]);
      expect(codes.filter((c) => c === '0').length).toBeGreaterThanOrEqual(1);
    }
  }, 60_000);
});
