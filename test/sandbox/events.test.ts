import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_KINDS, EVENT_TYPES } from '../../src/events/kinds.js';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { event, eventHeaders, get, postEvent, SERVICE_KEY, send, start } from './helpers.js';

let sb: RunningSandbox & { lines: string[] };
beforeAll(async () => {
  sb = await start();
});
afterAll(async () => {
  await sb.close();
});

describe('event endpoints over HTTP', () => {
  it.each(EVENT_TYPES)('collects a valid %s event: 200, no body, stored', async (type) => {
    const headers = eventHeaders();
    const res = await postEvent(sb.url, type, event(type), headers);
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
    const stored = await get(sb.url, `/_sandbox/events?type=${type}&limit=1`);
    expect(stored.items[0].type).toBe(type);
    expect(stored.items[0].requestId).toBe(headers.requestId);
    expect(stored.items[0].idempotencyKey).toBe(headers['Idempotency-Key']);
    expect(stored.items[0].body.data.agent.identifier).toHaveLength(3);
  });

  it('accepts application/ld+json with a charset', async () => {
    const res = await send(sb.url, '/actions/view/product', event('view_product'), {
      ...eventHeaders(),
      'content-type': 'application/ld+json; charset=utf-8',
    });
    expect(res.status).toBe(200);
  });

  it('answers 400 naming the right path when an event is posted to another kind’s path', async () => {
    const res = await postEvent(sb.url, 'view_product', event('complete_purchase'));
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body.detail).toContain('/actions/purchase/complete');
    expect(body.errors[0]).toMatchObject({ index: null, sku: null, pointer: '/type' });
  });

  it('answers 400 for an event without a type on another kind’s path (its shape does not fit)', async () => {
    const e = event('complete_purchase');
    delete e.type;
    delete e.id;
    delete e.dataschema;
    const res = await postEvent(sb.url, 'view_product', e);
    expect(res.status).toBe(400);
    expect(res.json().errors.some((x: { pointer: string }) => x.pointer.startsWith('/data'))).toBe(true);
  });

  it('answers 400 problem+json listing each problem with a JSON pointer', async () => {
    const e = event('add_to_cart');
    delete e.data.object.orderQuantity;
    e.time = 'not a time';
    const res = await postEvent(sb.url, 'add_to_cart', e);
    expect(res.status).toBe(400);
    const body = res.json();
    expect(body).toMatchObject({ status: 400, title: 'Bad Request' });
    expect(typeof body.type).toBe('string');
    const pointers = body.errors.map((x: { pointer: string }) => x.pointer);
    expect(pointers).toContain('/data/object/orderQuantity');
    expect(pointers).toContain('/time');
  });

  it('answers 400 for malformed JSON and for a body that is not one object', async () => {
    expect((await send(sb.url, '/actions/view/product', '{"a":', eventHeaders())).status).toBe(400);
    expect((await send(sb.url, '/actions/view/product', '[1,2]', eventHeaders())).status).toBe(400);
    expect((await send(sb.url, '/actions/view/product', '', eventHeaders())).status).toBe(400);
  });

  it('answers 401 for a missing or wrong serviceKey, without echoing it', async () => {
    const missing = await send(sb.url, '/actions/view/product', event('view_product'), {
      requestId: 'r',
      'Idempotency-Key': randomUUID(),
    });
    expect(missing.status).toBe(401);
    expect(missing.json().detail).toMatch(/missing serviceKey/);
    const wrongKey = 'wrong-key-that-must-not-be-echoed';
    const wrong = await postEvent(
      sb.url,
      'view_product',
      event('view_product'),
      eventHeaders({ serviceKey: wrongKey }),
    );
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain(wrongKey);
    // a stray space inside the value is a wrong key (HTTP itself trims the ends)
    const spaced = await postEvent(
      sb.url,
      'view_product',
      event('view_product'),
      eventHeaders({ serviceKey: `${SERVICE_KEY.slice(0, 4)} ${SERVICE_KEY.slice(4)}` }),
    );
    expect(spaced.status).toBe(401);
    expect(spaced.text).not.toContain(SERVICE_KEY);
  });

  it('answers 415 for a non-JSON content type', async () => {
    const res = await send(sb.url, '/actions/view/product', JSON.stringify(event('view_product')), {
      ...eventHeaders(),
      'content-type': 'text/plain',
    });
    expect(res.status).toBe(415);
  });

  it('requires requestId and a well-formed Idempotency-Key (400)', async () => {
    const { requestId: _r, ...noRequestId } = eventHeaders();
    expect((await postEvent(sb.url, 'view_product', event('view_product'), noRequestId)).status).toBe(400);
    const { 'Idempotency-Key': _k, ...noKey } = eventHeaders();
    const missing = await postEvent(sb.url, 'view_product', event('view_product'), noKey);
    expect(missing.status).toBe(400);
    expect(missing.json().detail).toMatch(/Idempotency-Key/);
    for (const bad of ['abc', `${randomUUID()}x`, 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz']) {
      const res = await postEvent(
        sb.url,
        'view_product',
        event('view_product'),
        eventHeaders({ 'Idempotency-Key': bad }),
      );
      expect(res.status, bad).toBe(400);
    }
    // the 32-character form without hyphens is fine
    const compact = randomUUID().replace(/-/g, '');
    const ok = await postEvent(
      sb.url,
      'view_product',
      event('view_product'),
      eventHeaders({ 'Idempotency-Key': compact }),
    );
    expect(ok.status).toBe(200);
  });

  it('answers 404 for unknown paths and 405 for GET on an event path', async () => {
    expect((await send(sb.url, '/actions/view/nothing', {}, eventHeaders())).status).toBe(404);
    const res = await send(sb.url, '/actions/view/product', undefined, {}, 'GET');
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('logs one line per request with method, path, status, time and items', async () => {
    await postEvent(sb.url, 'search_submitted', event('search_submitted'));
    expect(sb.lines.some((l) => /^POST \/actions\/search\/submitted 200 \d+ms items=1$/.test(l))).toBe(true);
    expect(sb.lines.join('\n')).not.toContain(SERVICE_KEY);
  });

  it('routes are generated from the kinds table', () => {
    expect(EVENT_KINDS.map((k) => k.path)).toContain('/actions/click/product');
  });
});

describe('idempotency (IETF draft) on events', () => {
  it('replays the first answer for the same key and body, storing the event once', async () => {
    const headers = eventHeaders();
    const e = event('complete_purchase');
    e.source = `https://replay-${randomUUID()}.example.com`;
    const first = await postEvent(sb.url, 'complete_purchase', e, headers);
    const second = await postEvent(sb.url, 'complete_purchase', e, { ...headers, requestId: randomUUID() });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const stored = await get(sb.url, '/_sandbox/events?type=complete_purchase&limit=1000');
    expect(stored.items.filter((x: { body: { source: string } }) => x.body.source === e.source)).toHaveLength(
      1,
    );
  });

  it('replays a 400 as well: the key is bound to its first outcome', async () => {
    const headers = eventHeaders();
    const bad = { ...event('view_product'), time: 'nope' };
    expect((await postEvent(sb.url, 'view_product', bad, headers)).status).toBe(400);
    const again = await postEvent(sb.url, 'view_product', bad, headers);
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 422 for the same key with another body', async () => {
    const headers = eventHeaders();
    expect((await postEvent(sb.url, 'view_product', event('view_product'), headers)).status).toBe(200);
    const other = { ...event('view_product'), source: 'https://other.example.com' };
    const res = await postEvent(sb.url, 'view_product', other, headers);
    expect(res.status).toBe(422);
    expect(res.headers.get('content-type')).toMatch(/problem\+json/);
  });

  it('answers 409 while the first request with the key is still in flight', async () => {
    const slow = await start({ faults: { latencyMs: 400 } });
    try {
      const headers = eventHeaders();
      const first = postEvent(slow.url, 'view_product', event('view_product'), headers);
      await new Promise((r) => setTimeout(r, 100));
      const second = await postEvent(slow.url, 'view_product', event('view_product'), headers);
      expect(second.status).toBe(409);
      expect((await first).status).toBe(200);
      // once finished, the same request is replayed
      const third = await postEvent(slow.url, 'view_product', event('view_product'), headers);
      expect(third.status).toBe(200);
      expect(third.headers.get('idempotent-replayed')).toBe('true');
    } finally {
      await slow.close();
    }
  });

  it('forgets keys after the TTL (injected clock)', async () => {
    let t = Date.parse('2026-11-23T01:00:00Z');
    const clocked = await start({ now: () => new Date(t), idempotencyTtlMs: 60_000 });
    try {
      const headers = eventHeaders();
      expect((await postEvent(clocked.url, 'view_product', event('view_product'), headers)).status).toBe(200);
      t += 59_000;
      const other = { ...event('view_product'), source: 'https://later.example.com' };
      expect((await postEvent(clocked.url, 'view_product', other, headers)).status).toBe(422);
      t += 2_000;
      const res = await postEvent(clocked.url, 'view_product', other, headers);
      expect(res.status).toBe(200);
      expect(res.headers.get('idempotent-replayed')).toBeNull();
      expect((await get(clocked.url, '/_sandbox/events?type=view_product')).total).toBe(2);
    } finally {
      await clocked.close();
    }
  });
});

describe('the contract sample quirks over HTTP', () => {
  it('answers 400 sample-quirk with the same did-you-mean as events validate, nothing stored', async () => {
    const e = event('complete_purchase');
    e.type = 'complate_purchase';
    e.specversion = '1.0';
    const total = () => (sb.stats() as { events: { total: number } }).events.total;
    const before = total();
    const res = await postEvent(sb.url, 'complete_purchase', e);
    expect(res.status).toBe(400);
    const body = res.json();
    expect(body.errors.map((x: { pointer: string }) => x.pointer)).toEqual(['/specversion', '/type']);
    expect(body.detail).toContain('did you mean "complete_purchase"?');
    const r = event('remove_from_cart');
    r.data['@type'] = 'AddAction';
    const cart = await postEvent(sb.url, 'remove_from_cart', r);
    expect(cart.status).toBe(400);
    expect(cart.json().errors[0].message).toMatch(/^cart_remove_add_action: .*did you mean "DeleteAction"\?/);
    expect(total()).toBe(before);
  });
});
