import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gtinCheckDigit } from '../../src/schema/checks.js';
import { openDatabase } from '../../src/storage/sqlite.js';
import { type GatedSandbox, gatedSandbox, spawnGenser } from '../helpers/gated.js';
import { GUARDS_OFF } from '../helpers/guards-off.js';
import { genser } from '../helpers/run-cli.js';

/**
 * SIGTERM (cron, systemd, Kubernetes) is an orderly stop like Ctrl-C (src/commands/sending.ts):
 * requests in flight finish, the summary and the --json document are written, the state is
 * settled (its lock released), and the exit status is 143. Each test runs the built CLI as a
 * process of its own against a real sandbox on 127.0.0.1, holding its first request in flight.
 */
const root = join(import.meta.dirname, '..', '..');
const catalog = readFileSync(join(root, 'fixtures', 'catalog.csv'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'genser-sigterm-'));
let n = 0;
const fresh = (name: string) => join(dir, `${name}-${++n}`);
const API_KEY = 'sigterm-api-key-0123456789';

let gated: GatedSandbox | undefined;
afterEach(async () => {
  await gated?.close();
  gated = undefined;
});

/** The rows a query gives in the state file of a directory. */
function stateRows(stateDir: string, sql: string): unknown[] {
  const [file] = readdirSync(stateDir).filter((f) => f.endsWith('.sqlite'));
  const db = openDatabase(join(stateDir, file));
  try {
    return db
      .prepare(sql)
      .all()
      .map((row) => ({ ...(row as object) }));
  } finally {
    db.close();
  }
}

/** The run lock rows left in a state directory (none once a run has ended). */
const locksIn = (stateDir: string) => stateRows(stateDir, 'SELECT pid FROM lock').length;

/** Sends SIGTERM once a request is in flight, then lets that request finish. */
async function termWhileSending(g: GatedSandbox, run: ReturnType<typeof spawnGenser>): Promise<void> {
  await g.next();
  run.child.kill('SIGTERM');
  await run.said('interrupted:');
  g.open();
}

describe('SIGTERM stops a run in order (exit 143)', () => {
  it('upload: the batch in flight finishes, the summary and JSON are written, the lock released', async () => {
    gated = await gatedSandbox({ apiKey: API_KEY, serviceKey: 'sigterm-service-key-0123' });
    const stateDir = fresh('state');
    const feed = `${fresh('feed')}.csv`;
    writeFileSync(feed, catalog);
    gated.hold();
    const env = { GENSER_API_URL: gated.url, GENSER_API_KEY: API_KEY, GENSER_STATE_DIR: stateDir };
    const run = spawnGenser(['upload', feed, '--json', '--batch-size', '5', '--concurrency', '1'], env);
    await termWhileSending(gated, run);
    expect(await run.exited).toEqual({ code: 143, signal: null });
    const doc = JSON.parse(run.stdout()) as {
      summary: { accepted: number; notSent: number };
      stopped?: { reason: string };
    };
    expect(doc.summary.accepted).toBe(5);
    expect(doc.stopped?.reason).toBe('interrupted');
    expect(run.stderr()).toContain('genser: interrupted: no new requests were started');
    expect(locksIn(stateDir)).toBe(0);
    // The history holds the run, settled with its exit status and counts.
    expect(stateRows(stateDir, 'SELECT exit_code AS code, accepted FROM runs')).toEqual([
      { code: 143, accepted: 5 },
    ]);
  });

  it('upload: also while the feed is still being read (stdin left open), with a summary', async () => {
    gated = await gatedSandbox({ apiKey: API_KEY, serviceKey: 'sigterm-service-key-0123' });
    const stateDir = fresh('state');
    gated.hold();
    const env = { GENSER_API_URL: gated.url, GENSER_API_KEY: API_KEY, GENSER_STATE_DIR: stateDir };
    // 800 rows of the catalog under new SKUs, in batches of 300: two batches go once their rows
    // are read, while the last 200 rows wait for the rest of the feed (its end), which never
    // comes: the run is waiting on the read when SIGTERM comes.
    const [header, ...rows] = catalog.trimEnd().split('\n');
    // Each row its own SKU and GTIN (two SKUs may not share one); each catalog row has one GTIN.
    const lines = Array.from({ length: 800 }, (_, k) => {
      const body = String(880_000_000_000 + k);
      return `${k}-${rows[k % rows.length]}`.replace(/,\d{12,14},/, `,${body}${gtinCheckDigit(body)},`);
    });
    const run = spawnGenser(
      [
        'upload',
        '-',
        '--input-type',
        'csv',
        '--json',
        '--batch-size',
        '300',
        '--max-change',
        '100%',
        ...GUARDS_OFF,
      ],
      env,
    );
    run.child.stdin.write(`${header}\n${lines.join('\n')}\n`);
    await termWhileSending(gated, run);
    const exit = await run.exited;
    run.child.stdin.destroy();
    expect(exit).toEqual({ code: 143, signal: null });
    const doc = JSON.parse(run.stdout()) as {
      summary: { rows: number; accepted: number };
      stopped?: { reason: string };
    };
    expect([300, 600]).toContain(doc.summary.accepted);
    // Rows already piped are read (a pause hands them on); the feed's end never came.
    expect(doc.summary.rows).toBeLessThanOrEqual(800);
    expect(doc.stopped?.reason).toBe('interrupted');
    expect(locksIn(stateDir)).toBe(0);
  });

  it('stock: the same ending', async () => {
    gated = await gatedSandbox({ apiKey: API_KEY, serviceKey: 'sigterm-service-key-0123' });
    const stateDir = fresh('state');
    const feed = `${fresh('feed')}.csv`;
    writeFileSync(feed, catalog);
    const env = { GENSER_API_URL: gated.url, GENSER_API_KEY: API_KEY, GENSER_STATE_DIR: stateDir };
    expect((await genser(['upload', feed], env)).code).toBe(0);
    const skus = catalog
      .split('\n')
      .slice(1, 13)
      .map((line) => line.split(',')[0]);
    const stock = `${fresh('stock')}.csv`;
    writeFileSync(stock, `sku,availability\n${skus.map((s) => `${s},OutOfStock`).join('\n')}\n`);
    gated.hold();
    const run = spawnGenser(['stock', stock, '--json', '--batch-size', '5', '--concurrency', '1'], env);
    await termWhileSending(gated, run);
    expect(await run.exited).toEqual({ code: 143, signal: null });
    const doc = JSON.parse(run.stdout()) as { summary: { accepted: number }; stopped?: { reason: string } };
    expect(doc.summary.accepted).toBe(5);
    expect(doc.stopped?.reason).toBe('interrupted');
    expect(locksIn(stateDir)).toBe(0);
  });
});
