import { EVENT_KINDS, type EventKind, type EventType, kindByType } from './kinds.js';

/**
 * One valid example event per kind, built from the kinds table: what `genser events example`
 * prints, so an integrator starts from something the service accepts.
 */

export const SCHEMA_BASE = 'https://schema.example.com';

const agent = {
  '@type': 'Person',
  identifier: [
    { '@type': 'PropertyValue', propertyID: 'userId', value: 'user-1001' },
    { '@type': 'PropertyValue', propertyID: 'memberId', value: 'member-1001' },
    { '@type': 'PropertyValue', propertyID: 'cookieId', value: 'cookie-7f3a9c' },
  ],
  gender: 'Female',
  additionalProperty: [{ '@type': 'PropertyValue', propertyID: 'grade', value: 'VIP' }],
};

const product = {
  '@type': 'Product',
  sku: 'A-1001',
  name: [
    { '@value': '무선 이어폰', '@language': 'ko' },
    { '@value': 'Wireless earbuds', '@language': 'en' },
  ],
  offers: { '@type': 'Offer', price: 129000, priceCurrency: 'KRW' },
};

const orderLine = { '@type': 'OrderItem', orderedItem: product, orderQuantity: 1 };
const wishlistItem = {
  '@type': 'OrderItem',
  orderedItem: { '@type': 'Product', sku: product.sku, name: product.name },
};

function itemList(withCount: boolean) {
  return {
    '@type': 'ItemList',
    ...(withCount ? { numberOfItems: 2 } : {}),
    itemListElement: [
      { '@type': 'ListItem', position: 1, item: { '@type': 'Product', sku: 'A-1001', name: '무선 이어폰' } },
      { '@type': 'ListItem', position: 2, item: { '@type': 'Product', sku: 'A-1002', name: '충전 케이스' } },
    ],
  };
}

function objectFor(type: EventType): unknown {
  switch (type) {
    case 'view_product':
      return product;
    case 'click_product':
      return {
        '@type': 'ItemList',
        itemListElement: {
          '@type': 'ListItem',
          position: 1,
          item: { '@type': 'Product', sku: 'A-1001', name: '무선 이어폰' },
        },
      };
    case 'search_submitted':
      return {
        '@type': 'Thing',
        actionOption: [
          { '@type': 'PropertyValue', propertyID: 'category', value: 'audio' },
          { '@type': 'PropertyValue', propertyID: 'maxPrice', value: 200000 },
        ],
      };
    case 'search_result':
      return itemList(true);
    case 'add_to_wishlist':
    case 'remove_from_wishlist':
      return wishlistItem;
    case 'add_to_cart':
    case 'remove_from_cart':
      return orderLine;
    case 'start_checkout':
    case 'complete_purchase':
    case 'cancel_purchase':
      return [orderLine];
  }
}

export function exampleEvent(kind: EventKind, now: Date = new Date()): Record<string, unknown> {
  const data: Record<string, unknown> = {
    '@context': 'https://schema.org/',
    '@type': kind.actionType,
    agent,
    object: objectFor(kind.type),
    target: {
      '@type': 'EntryPoint',
      urlTemplate: `https://shop.example.com${kind.path.replace('/actions', '')}`,
    },
  };
  if (kind.type === 'search_submitted') data.query = '무선 이어폰';
  return {
    specversion: '1.0.0',
    id: kind.id,
    type: kind.type,
    time: now.toISOString(),
    source: 'https://shop.example.com',
    datacontenttype: 'application/ld+json',
    dataschema: `${SCHEMA_BASE}/schema/actions/${kind.dataschemaFile}`,
    // A copy: callers edit the example they get without changing the next one.
    data: structuredClone(data),
  };
}

export function exampleFor(type: string, now?: Date): Record<string, unknown> | undefined {
  const kind = kindByType(type);
  return kind ? exampleEvent(kind, now) : undefined;
}

export function allExamples(now?: Date): Record<string, unknown>[] {
  return EVENT_KINDS.map((k) => exampleEvent(k, now));
}

/**
 * What `genser events example [TYPE]` prints: one kind pretty-printed; all eleven as NDJSON, or
 * with `json` as one JSON document (an array of the eleven). Undefined for an unknown kind.
 */
export function examplesText(
  type: string | undefined,
  options: { json?: boolean; now?: Date } = {},
): string | undefined {
  if (type !== undefined) {
    const example = exampleFor(type, options.now);
    return example ? `${JSON.stringify(example, null, 2)}\n` : undefined;
  }
  const all = allExamples(options.now);
  if (options.json) return `${JSON.stringify(all, null, 2)}\n`;
  return all.map((e) => `${JSON.stringify(e)}\n`).join('');
}
