import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { MAX_LISTED_ERRORS } from '../../src/sandbox/problems.js';
import { workerFromSource } from '../helpers/workers.js';
import { postEvent, postLegacy, postStandard, start } from './helpers.js';

// Hostile bodies (issue 19.1): nothing a client sends costs more than linear time, and the
// sandbox's own thread keeps answering while bodies are ingested.

const workerUrl = await workerFromSource('sandbox/ingest-worker.ts');
const empties = (n: number) => `[${new Array(n).fill('{}').join(',')}]`;

describe('hostile bodies, on the sandbox thread', () => {
  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await start({ quiet: true, ingest: { minBytes: Number.POSITIVE_INFINITY } });
  });
  afterAll(() => sb.close());

  it('answers {"@graph": [16,000 empty objects]} at once: every item counted, the listing capped', async () => {
    const started = performance.now();
    const r = await postStandard(sb.url, `{"@graph":${empties(16_000)}}`);
    const ms = performance.now() - started;
    expect(r.status).toBe(400);
    const body = r.json();
    expect(body.detail).toMatch(
      /^16000 products are invalid; nothing was stored \(problems are listed for the first \d+ invalid items only\)$/,
    );
    expect(body.errors.length).toBeLessThanOrEqual(MAX_LISTED_ERRORS);
    expect(body.errors).toContainEqual({
      index: null,
      sku: null,
      pointer: '/agent',
      message: 'missing required property "agent"',
    });
    expect(body.errors).toContainEqual({
      index: 0,
      sku: null,
      pointer: '/@graph/0/sku',
      message: 'missing required property "sku"',
    });
    // Was 30 s, and the sandbox answered nothing else meanwhile.
    expect(ms).toBeLessThan(5000);
  });

  it('answers a legacy array of 16,000 empty objects at once', async () => {
    const r = await postLegacy(sb.url, empties(16_000));
    expect(r.status).toBe(400);
    const value = r.json().processValue;
    expect(value.message).toMatch(/^16000 products are invalid/);
    expect(value.errors.length).toBeLessThanOrEqual(MAX_LISTED_ERRORS);
  });

  it('answers an event whose list holds 16,000 bad entries at once, saying the listing is capped', async () => {
    const event = {
      specversion: '1.0.0',
      type: 'add_to_wishlist',
      time: '2026-01-01T00:00:00Z',
      source: 'https://shop.example.com',
      data: { agent: { identifier: [] }, object: new Array(16_000).fill({}) },
    };
    const started = performance.now();
    const r = await postEvent(sb.url, 'add_to_wishlist', event);
    expect(r.status).toBe(400);
    const body = r.json();
    expect(body.errors.length).toBeLessThanOrEqual(100);
    expect(body.detail).toContain('were checked in detail');
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('hostile bodies, with the ingest worker', () => {
  it('has the worker, built from the sources', () => expect(existsSync(workerUrl)).toBe(true));

  let sb: RunningSandbox;
  beforeAll(async () => {
    sb = await start({ quiet: true, ingest: { url: workerUrl } });
  });
  afterAll(() => sb.close());

  it('answers GET /_sandbox/stats while bodies large and small are being ingested', async () => {
    // Compiling the schemas is once per process (and per worker), not per request: done first.
    await Promise.all([postStandard(sb.url, `{"@graph":${empties(100_000)}}`), postLegacy(sb.url, '[{}]')]);
    const latencies: number[] = [];
    let ingesting = true;
    const poll = (async () => {
      while (ingesting) {
        const t = performance.now();
        const res = await fetch(`${sb.url}/_sandbox/stats`);
        await res.json();
        latencies.push(performance.now() - t);
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    // An event and a product body of ~300 KiB go to the worker; ~120 KiB (40,000 items) stays on the server's thread.
    const bigEvent = {
      specversion: '1.0.0',
      type: 'add_to_wishlist',
      time: '2026-01-01T00:00:00Z',
      source: 'https://shop.example.com',
      data: { agent: { identifier: [] }, object: new Array(100_000).fill({}) },
    };
    const answers = await Promise.all([
      postEvent(sb.url, 'add_to_wishlist', bigEvent),
      postStandard(sb.url, `{"@graph":${empties(100_000)}}`),
      postStandard(sb.url, `{"@graph":${empties(40_000)}}`),
      postLegacy(sb.url, empties(40_000)),
    ]);
    ingesting = false;
    await poll;
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400]);
    // The contract is 100 ms on an idle machine; this bound leaves room for a loaded test machine.
    // Stats kept answering meanwhile (each takes well under 100 ms on an idle machine; the bound
    // here is loose for a loaded test machine: before the fix the small bodies alone held the
    // thread for minutes).
    expect(latencies.length).toBeGreaterThanOrEqual(3);
    expect(Math.max(...latencies)).toBeLessThan(5000);
  });
});
