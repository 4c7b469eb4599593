import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type GatedSandbox, gatedSandbox, spawnGenser } from '../helpers/gated.js';

/**
 * SIGTERM stops `events send` and `events backfill` in order, as Ctrl-C does (src/commands/
 * sending.ts): the events in flight finish, the summary or --json document is written, and the
 * exit status is 143. The built CLI runs as a process of its own against a real sandbox on
 * 127.0.0.1 whose first request is held in flight.
 */
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
const woo = join(root, 'fixtures', 'orders', 'woocommerce-orders.csv');
const dir = mkdtempSync(join(tmpdir(), 'genser-events-sigterm-'));
const SERVICE_KEY = 'sigterm-service-key-0123';
const keys = { apiKey: 'sigterm-api-key-0123456789', serviceKey: SERVICE_KEY };

let gated: GatedSandbox | undefined;
afterEach(async () => {
  await gated?.close();
  gated = undefined;
});

async function stopInFlight(args: string[]) {
  gated = await gatedSandbox(keys);
  gated.hold();
  const run = spawnGenser(args, { GENSER_BASE_URL: gated.url, GENSER_SERVICE_KEY: SERVICE_KEY });
  await gated.next();
  run.child.kill('SIGTERM');
  await run.said('interrupted:');
  gated.open();
  return { run, exit: await run.exited };
}

describe('SIGTERM stops an events run in order (exit 143)', () => {
  it('events send: the event in flight finishes; the --json document says it stopped', async () => {
    const examples = join(dir, 'examples.ndjson');
    writeFileSync(examples, execFileSync(process.execPath, [bin, 'events', 'example']));
    const { run, exit } = await stopInFlight(['events', 'send', examples, '--json', '--concurrency', '1']);
    expect(exit).toEqual({ code: 143, signal: null });
    const doc = JSON.parse(run.stdout()) as { summary: { accepted: number }; stopped?: { reason: string } };
    expect(doc.summary.accepted).toBe(1);
    expect(doc.stopped?.reason).toBe('interrupted');
    expect(run.stderr()).toContain('genser: interrupted');
  });

  it('events backfill: the same, with its summary for people', async () => {
    const { run, exit } = await stopInFlight([
      'events',
      'backfill',
      woo,
      '--preset',
      'woocommerce',
      '--source',
      'https://shop.example.com',
      '--concurrency',
      '1',
    ]);
    expect(exit).toEqual({ code: 143, signal: null });
    expect(run.stderr()).toMatch(/^backfill: \d+ rows?, \d+ orders?/m);
    expect(run.stderr()).toMatch(/events: 1 sent: 1 accepted, 0 rejected/);
    expect(run.stderr()).toContain('genser: interrupted');
  });
});
