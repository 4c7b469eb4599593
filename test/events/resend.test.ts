import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { examplesText } from '../../src/events/examples.js';
import { type EventToSend, sendEvents } from '../../src/events/send.js';
import { checkedEvents, type EventReadSettings } from '../../src/events/source.js';
import { UndiciSender } from '../../src/http/sender.js';
import { type RunningSandbox, startSandbox } from '../../src/sandbox/index.js';
import { memoryLogger } from '../../src/shared/logger.js';

const dir = mkdtempSync(join(tmpdir(), 'genser-events-resend-'));
const fast = { concurrency: 4, retries: 2, backoff: { baseMs: 1, capMs: 5, retryAfterCapMs: 50 } };
let sandbox: RunningSandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, serviceKey: 'svc-resend-test', log: memoryLogger(), quiet: true });
});
afterAll(async () => {
  await sandbox.close();
});

async function sendFile(file: string, settings: Partial<EventReadSettings> = {}) {
  const log = memoryLogger();
  async function* valid(): AsyncGenerator<EventToSend> {
    for await (const c of checkedEvents([file], { encoding: 'auto', ...settings }, log)) {
      if (c.kind === 'event') yield c.send;
      else throw new Error(`unexpected problem: ${c.problem.message}`);
    }
  }
  const poster = new UndiciSender({
    apiUrl: sandbox.url,
    connections: 4,
    timeoutMs: 5000,
    userAgent: 'genser/test',
    keyHeader: 'serviceKey',
    key: 'svc-resend-test',
  });
  try {
    return await sendEvents(valid(), fast, { poster, log });
  } finally {
    await poster.close();
  }
}

const stored = () => (sandbox.stats() as { events: { total: number } }).events.total;

describe('re-sending an events file', () => {
  it('stores the eleven events once when the same file is sent twice (and in another key order)', async () => {
    const before = stored();
    const file = join(dir, 'events.ndjson');
    writeFileSync(file, examplesText(undefined, { now: new Date('2026-11-23T09:00:00Z') })!);
    const first = await sendFile(file);
    expect(first).toMatchObject({ sent: 11, accepted: 11, rejected: 0, failed: 0 });
    const second = await sendFile(file);
    expect(second).toMatchObject({ sent: 11, accepted: 11, rejected: 0, failed: 0 });
    expect(stored() - before).toBe(11);

    // The same events re-exported as a pretty JSON array with the members in another order.
    const reordered = join(dir, 'events.json');
    const events = examplesText(undefined, { json: true, now: new Date('2026-11-23T09:00:00Z') })!;
    const shuffled = (JSON.parse(events) as Record<string, unknown>[]).map((e) =>
      Object.fromEntries(Object.entries(e).reverse()),
    );
    writeFileSync(reordered, JSON.stringify(shuffled, null, 2));
    expect(await sendFile(reordered)).toMatchObject({ accepted: 11, rejected: 0 });
    expect(stored() - before).toBe(11);
  });

  it('stores them again with newKeys (--new-keys)', async () => {
    const before = stored();
    const file = join(dir, 'fresh.ndjson');
    writeFileSync(file, examplesText(undefined, { now: new Date('2026-11-24T09:00:00Z') })!);
    await sendFile(file, { newKeys: true });
    await sendFile(file, { newKeys: true });
    expect(stored() - before).toBe(22);
  });
});
