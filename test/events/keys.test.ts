import { describe, expect, it } from 'vitest';
import { exampleFor } from '../../src/events/examples.js';
import {
  canonicalJson,
  EVENT_KEY_NAMESPACE,
  eventIdentity,
  eventKey,
  uuidV5,
} from '../../src/events/keys.js';
import { kindByType } from '../../src/events/kinds.js';

const URL_NAMESPACE = '6ba7b811-9dad-11d1-80b4-00c04fd430c8';
const DNS_NAMESPACE = '6ba7b810-9dad-11d1-80b4-00c04fd430c8';

describe('uuidV5', () => {
  it('matches the RFC 9562 / Python uuid5 values', () => {
    expect(uuidV5('python.org', DNS_NAMESPACE)).toBe('886313e1-3b8a-5372-9b90-0c9aee199e5d');
    // The namespace of event keys is itself documented as v5 of this URL.
    expect(uuidV5('https://genser.dev/ns/events', URL_NAMESPACE)).toBe(EVENT_KEY_NAMESPACE);
    expect(uuidV5('{"a":1}', EVENT_KEY_NAMESPACE)).toBe('d7f1e058-3fb5-54e7-ba2a-fcf45ed16085');
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every depth, drops whitespace, keeps array order', () => {
    expect(canonicalJson({ b: [3, { z: 1, a: 'x' }], a: null, c: 'ü' })).toBe(
      '{"a":null,"b":[3,{"a":"x","z":1}],"c":"ü"}',
    );
    expect(canonicalJson(JSON.parse('{ "y" : 1 ,\n "x": [ 2 , 1 ] }'))).toBe('{"x":[2,1],"y":1}');
  });
});

describe('eventKey', () => {
  const view = () => exampleFor('view_product', new Date('2026-11-23T09:00:00Z')) as Record<string, any>;
  const kind = kindByType('view_product')!;

  it('is the same for the same event in any key order, and differs for another event', () => {
    const a = view();
    const reordered = JSON.parse(canonicalJson(a)) as Record<string, unknown>;
    const key = eventKey(eventIdentity(a, kind));
    expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(eventKey(eventIdentity(reordered, kind))).toBe(key);
    const later = view();
    later.time = '2026-11-23T09:00:01Z';
    expect(eventKey(eventIdentity(later, kind))).not.toBe(key);
  });

  it('ignores the kind constant id (shared by every event of a kind) but uses an id of its own', () => {
    const a = view();
    const b = view();
    b.data.object.sku = 'A-2002';
    expect(eventIdentity(a, kind)).not.toBe(eventIdentity(b, kind));
    a.id = 'order-view-7781';
    b.id = 'order-view-7781';
    expect(eventIdentity(a, kind)).toBe(eventIdentity(b, kind));
  });

  it('makes fresh v4 keys with newKeys', () => {
    const id = eventIdentity(view(), kind);
    const k1 = eventKey(id, { newKeys: true });
    expect(k1).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4/);
    expect(eventKey(id, { newKeys: true })).not.toBe(k1);
  });
});
