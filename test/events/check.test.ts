import { describe, expect, it } from 'vitest';
import { checkEvent } from '../../src/events/check.js';
import { allExamples, exampleFor } from '../../src/events/examples.js';
import { EVENT_TYPES } from '../../src/events/kinds.js';

describe('example events', () => {
  it('gives one example per kind, each accepted by its own schema', () => {
    const examples = allExamples(new Date('2026-11-23T09:00:00Z'));
    expect(examples.map((e) => e.type)).toEqual([...EVENT_TYPES]);
    for (const e of examples) {
      const check = checkEvent(e);
      expect(check, JSON.stringify(check)).toMatchObject({ ok: true, kind: { type: e.type } });
    }
  });
});

describe('checkEvent', () => {
  const view = () => exampleFor('view_product') as Record<string, any>;

  it('finds the kind from type, else from id, else from --type', () => {
    const noType = view();
    delete noType.type;
    expect(checkEvent(noType)).toMatchObject({ ok: true, kind: { type: 'view_product' } });
    delete noType.id;
    const unknown = checkEvent(noType);
    expect(unknown.ok).toBe(false);
    if (!unknown.ok) expect(unknown.problems[0].message).toMatch(/cannot tell the event kind/);
    expect(checkEvent(noType, 'view_product').ok).toBe(true);
  });

  it('names the pointer and the rule for each problem', () => {
    const e = view();
    e.time = '2026-11-23 09:00';
    e.data.agent.identifier = e.data.agent.identifier.filter(
      (i: { propertyID: string }) => i.propertyID !== 'cookieId',
    );
    delete e.data.object.sku;
    const check = checkEvent(e);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    const lines = check.problems.map((p) => `${p.pointer} ${p.message}`);
    expect(lines).toContain('/data/object is missing required member "sku"');
    expect(lines.some((l) => l.startsWith('/time '))).toBe(true);
    expect(lines).toContain(
      '/data/agent/identifier must contain the identifiers userId, memberId and cookieId',
    );
  });

  it('refuses an event sent as another kind', () => {
    const check = checkEvent(view(), 'complete_purchase');
    expect(check.ok).toBe(false);
    if (!check.ok)
      expect(check.problems[0]).toEqual({
        pointer: '/type',
        message: 'is "view_product" but the event is sent as complete_purchase',
      });
  });

  it('requires the query of a search and the offers of a purchase line', () => {
    const search = exampleFor('search_submitted') as Record<string, any>;
    delete search.data.query;
    const s = checkEvent(search);
    expect(s.ok).toBe(false);
    if (!s.ok)
      expect(s.problems).toContainEqual({ pointer: '/data', message: 'is missing required member "query"' });
    const purchase = exampleFor('complete_purchase') as Record<string, any>;
    delete purchase.data.object[0].orderedItem.offers;
    const p = checkEvent(purchase);
    expect(p.ok).toBe(false);
    if (!p.ok) expect(p.problems.map((x) => x.pointer)).toContain('/data/object/0/orderedItem');
  });

  it('says what is wrong with something that is not an object', () => {
    expect(checkEvent([1, 2])).toEqual({
      ok: false,
      problems: [{ pointer: '', message: 'an event must be a JSON object' }],
    });
  });
});

describe('an anyOf that allows an object or an array of them', () => {
  it('names the bad member of the array, not "must be object" for the allowed array', () => {
    const event = exampleFor('complete_purchase') as { data: { object: unknown } };
    const line = Array.isArray(event.data.object) ? event.data.object[0] : event.data.object;
    event.data.object = [line, { ...(line as object), orderQuantity: 'two' }];
    const check = checkEvent(event);
    expect(check.ok).toBe(false);
    const messages = check.ok ? [] : check.problems.map((p) => `${p.pointer} ${p.message}`);
    expect(messages.join('\n')).not.toMatch(/\/data\/object must be object/);
    expect(messages.some((m) => m.startsWith('/data/object/1'))).toBe(true);
  });
});
