import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { UsageError } from '../../src/shared/errors.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { Spool } from '../../src/upload/spool.js';
import { genser } from '../helpers/run-cli.js';
import { smallDisk } from '../helpers/small-disk.js';
import { productsOf, type ScriptedServer, scriptedServer } from './servers.js';

/**
 * The disk holding the state fills up while the run sends (docs/upload.md, "Retries, rejections and stops"): the
 * run stops in order with its own message (exit 2), batches whose answer the state could not
 * record stay in doubt, and the run after space is freed converges: the service holds every
 * product exactly once. Needs a small tmpfs (mount: root); skipped with one line elsewhere.
 */
const root = join(import.meta.dirname, '..', '..');
const FEED = join(root, 'fixtures', 'catalog.csv');

/** Fills the disk of `dir` to the last byte with one file; returns its path (removed to free it). */
function fill(dir: string): string {
  const ballast = join(dir, 'ballast');
  const fd = openSync(ballast, 'w');
  const block = Buffer.alloc(64 * 1024);
  try {
    for (let size = block.length; size >= 1; ) {
      try {
        writeSync(fd, block, 0, size);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOSPC') throw err;
        size = size >> 1;
      }
    }
  } finally {
    closeSync(fd);
  }
  return ballast;
}

let sandbox: RunningSandbox | undefined;
let proxy: ScriptedServer | undefined;
let ballast: string | undefined;
afterEach(async () => {
  await proxy?.close();
  await sandbox?.close();
  proxy = sandbox = undefined;
  if (ballast) rmSync(ballast, { force: true });
  ballast = undefined;
  clearSecrets();
});

/** 2 MiB: a fresh state of the fixture takes a few hundred KiB. */
const disk = smallDisk('2m');
if (!disk) console.log('full-disk tests skipped: mounting a tmpfs needs root (mount -t tmpfs)');

const receivedCounts = async (sb: RunningSandbox) =>
  (
    (await (await fetch(`${sb.url}/_sandbox/products?limit=1000`)).json()) as {
      items: { sku: string; receivedCount: number }[];
    }
  ).items.map((p) => p.receivedCount);

describe.skipIf(disk === undefined)('a full disk while the run sends', () => {
  it('stops in order (exit 2, naming the path), leaves the unrecorded batch in doubt; freed, the next run converges', async () => {
    const stateDir = join(disk!, 'state');
    mkdirSync(stateDir, { mode: 0o700 });
    sandbox = await startSandbox({ port: 0, quiet: true });
    const target = sandbox.url;
    // In front of the sandbox: it stores the second batch, and the disk is full when the answer comes.
    proxy = await scriptedServer(async (req, res) => {
      const answer = await fetch(target + req.path, {
        method: 'POST',
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)),
        ) as Record<string, string>,
        body: req.body,
      });
      if (req.n === 2) ballast = fill(disk!);
      res.writeHead(answer.status, {
        'content-type': answer.headers.get('content-type') ?? 'application/json',
      });
      res.end(await answer.text());
    });
    const env = { GENSER_API_URL: proxy.url, GENSER_API_KEY: sandbox.apiKey, GENSER_STATE_DIR: stateDir };
    const args = ['upload', FEED, '--batch-size', '5', '--concurrency', '1'];

    const report = join(mkdtempSync(join(tmpdir(), 'genser-fill-report-')), 'run.json');
    const full = await genser([...args, '--report', report], env);
    expect(full.code, full.stderr).toBe(2);
    expect(full.stderr).toMatch(
      /^genser: the disk is full: the upload state \S+\.sqlite could not be written \(SQLITE_FULL\)$/m,
    );
    expect(full.stderr).toMatch(/^hint: free some space on that disk/m);
    expect(full.stderr).not.toContain('a bug in genser');
    // In order: the summary says what landed, what is in doubt and what was not sent.
    expect(full.stderr).toContain(
      '10 sent in 2 batches: 5 accepted, 0 rejected, 5 unconfirmed; 15 valid rows not sent',
    );
    expect(full.stderr).toContain('unconfirmed: batch 2 rows 6-10');
    expect(JSON.parse(readFileSync(report, 'utf8')).stopped).toMatchObject({ reason: 'state' });
    const doubtful = proxy.requests[1].headers['idempotency-key'];
    expect(proxy.requests).toHaveLength(2);

    rmSync(ballast!);
    ballast = undefined;
    const next = await genser(args, env);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(
      '1 batch(es) of an earlier run were never answered: sent again with their own envelope ids',
    );
    // The batch in doubt goes again with its own id (the sandbox replays its answer), never as accepted.
    const again = proxy.requests.slice(2).find((r) => r.headers['idempotency-key'] === doubtful);
    expect(productsOf(again!.body).map((p) => p.sku)).toEqual(
      productsOf(proxy.requests[1].body).map((p) => p.sku),
    );
    const counts = await receivedCounts(sandbox);
    expect(counts).toHaveLength(25);
    expect(counts.every((c) => c === 1)).toBe(true);
    expect((await genser(args, env)).stderr).toContain('0 new, 0 changed, 25 unchanged');
  });

  it('the spool on a full disk: its own message naming it (exit 2), not a bug', () => {
    const dir = join(disk!, 'spool');
    mkdirSync(dir, { mode: 0o700 });
    const spool = Spool.open(dir);
    try {
      ballast = fill(disk!);
      const row = { file: 'f.csv', row: 1, line: 2, sku: 'S-1', issues: [], valid: true };
      let thrown: unknown;
      try {
        spool.add(row, Buffer.alloc(2 * 1024 * 1024, 0x20));
        spool.finishWriting();
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(UsageError);
      expect((thrown as UsageError).message).toBe(
        `the disk is full: the upload spool ${spool.path} could not be written (ENOSPC)`,
      );
    } finally {
      spool.remove();
    }
  });
});
