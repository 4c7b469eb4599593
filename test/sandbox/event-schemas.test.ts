import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EVENT_KINDS, EVENT_TYPES, kindByPath, kindByType } from '../../src/events/kinds.js';
import { getValidator } from '../../src/schema/schemas.js';
import { schemasDir } from '../../src/shared/paths.js';
import { event } from './helpers.js';

const valid = (type: string, body: unknown) => getValidator(`events/${type}`)(body);

describe('the kinds table (contract 2.6)', () => {
  it('has the eleven kinds with distinct types, paths and ids', () => {
    expect(EVENT_KINDS).toHaveLength(11);
    expect(new Set(EVENT_KINDS.map((k) => k.path)).size).toBe(11);
    expect(new Set(EVENT_KINDS.map((k) => k.id)).size).toBe(11);
    expect(EVENT_KINDS.map((k) => k.type)).toEqual([...EVENT_TYPES]);
    expect(kindByPath('/actions/purchase/complete')?.type).toBe('complete_purchase');
    expect(kindByType('cancel_purchase')?.path).toBe('/actions/purchase/cancel');
    expect(kindByType('complate_purchase')).toBeUndefined();
  });

  it('matches the constants written into each kind schema', () => {
    for (const k of EVENT_KINDS) {
      const schema = JSON.parse(readFileSync(join(schemasDir, 'events', `${k.type}.schema.json`), 'utf8'));
      expect(schema.$id).toBe(`https://genser.dev/schemas/events/${k.type}.schema.json`);
      expect(schema.properties.type.const).toBe(k.type);
      expect(schema.properties.id.const).toBe(k.id);
      expect(schema.properties.data.properties['@type'].const).toBe(k.actionType);
      expect(
        new RegExp(schema.properties.dataschema.pattern).test(`x/schema/actions/${k.dataschemaFile}`),
      ).toBe(true);
    }
  });
});

describe('event schemas', () => {
  it.each(EVENT_TYPES)('accepts a complete %s event', (type) => {
    const v = getValidator(`events/${type}`);
    expect(v(event(type)), JSON.stringify(v.errors)).toBe(true);
  });

  it.each(EVENT_TYPES)('accepts a minimal %s event (only required fields)', (type) => {
    const e = event(type);
    for (const k of ['specversion', 'id', 'type', 'datacontenttype', 'dataschema']) delete e[k];
    delete e.data['@context'];
    delete e.data['@type'];
    delete e.data.target;
    expect(valid(type, e)).toBe(true);
  });

  it.each(EVENT_TYPES)('rejects %s with another kind’s id, type, action type or dataschema', (type) => {
    const other = EVENT_KINDS.find((k) => k.type !== type && k.actionType !== kindByType(type)!.actionType)!;
    expect(valid(type, { ...event(type), id: other.id })).toBe(false);
    expect(valid(type, { ...event(type), type: other.type })).toBe(false);
    expect(
      valid(type, { ...event(type), dataschema: `https://s/schema/actions/${other.dataschemaFile}` }),
    ).toBe(false);
    const e = event(type);
    e.data['@type'] = other.actionType;
    expect(valid(type, e)).toBe(false);
  });

  it('rejects the sample variants that are not the enumerated values', () => {
    expect(valid('view_product', { ...event('view_product'), specversion: '1.0' })).toBe(false);
    expect(valid('view_product', { ...event('view_product'), id: 'EVT-VIEW-PRODUCT-001' })).toBe(false);
    expect(valid('complete_purchase', { ...event('complete_purchase'), type: 'complate_purchase' })).toBe(
      false,
    );
  });

  it('requires time in UTC, source, data and the three agent identifiers', () => {
    expect(valid('view_product', { ...event('view_product'), time: '2026-11-23T18:00:00+09:00' })).toBe(
      false,
    );
    expect(valid('view_product', { ...event('view_product'), time: 'yesterday' })).toBe(false);
    const noSource = event('view_product');
    delete noSource.source;
    expect(valid('view_product', noSource)).toBe(false);
    const noCookie = event('view_product');
    noCookie.data.agent.identifier = noCookie.data.agent.identifier.slice(0, 2);
    expect(valid('view_product', noCookie)).toBe(false);
    const noAgent = event('view_product');
    delete noAgent.data.agent;
    expect(valid('view_product', noAgent)).toBe(false);
  });

  it('applies the per-kind object shapes of contract 2.5', () => {
    const noQuery = event('search_submitted');
    delete noQuery.data.query;
    expect(valid('search_submitted', noQuery)).toBe(false);
    const noObject = event('search_submitted');
    delete noObject.data.object;
    expect(valid('search_submitted', noObject)).toBe(true);
    // purchase lines need offers and a quantity; wishlist items do not
    const noOffers = event('complete_purchase');
    delete noOffers.data.object[0].orderedItem.offers;
    expect(valid('complete_purchase', noOffers)).toBe(false);
    const noQuantity = event('start_checkout');
    delete noQuantity.data.object[0].orderQuantity;
    expect(valid('start_checkout', noQuantity)).toBe(false);
    const noName = event('add_to_wishlist');
    delete noName.data.object.orderedItem.name;
    expect(valid('add_to_wishlist', noName)).toBe(false);
    // a cart event takes one OrderItem, not a list
    expect(
      valid('add_to_cart', { ...event('add_to_cart'), data: { ...event('add_to_cart').data, object: [] } }),
    ).toBe(false);
    // search results need numberOfItems; a language outside ko/en/ja is refused
    const noCount = event('search_result');
    delete noCount.data.object[0].numberOfItems;
    expect(valid('search_result', noCount)).toBe(false);
    const badLang = event('view_product');
    badLang.data.object.name = { '@value': 'x', '@language': 'fr' };
    expect(valid('view_product', badLang)).toBe(false);
    const noSku = event('view_product');
    delete noSku.data.object.sku;
    expect(valid('view_product', noSku)).toBe(false);
  });
});
