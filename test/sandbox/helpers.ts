import { randomUUID } from 'node:crypto';
import type { EventType } from '../../src/events/kinds.js';
import { kindByType } from '../../src/events/kinds.js';
import { type RunningSandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { parseBackendChoice } from '../../src/storage/sqlite.js';

export type Loose = any;

export const API_KEY = 'test-api-key-0123456789';
export const SERVICE_KEY = 'test-service-key-0123456789';

/** The SQLite driver the sandbox tests run on: GENSER_SQLITE=node|better-sqlite3 forces one (docs/sandbox.md). */
export const SQLITE = parseBackendChoice(process.env.GENSER_SQLITE);

/** A sandbox on 127.0.0.1, a free port, fixed keys, logging into memory. */
export async function start(options: SandboxOptions = {}): Promise<RunningSandbox & { lines: string[] }> {
  const log = memoryLogger();
  const sandbox = await startSandbox({
    apiKey: API_KEY,
    serviceKey: SERVICE_KEY,
    log,
    sqlite: SQLITE,
    ...options,
  });
  return Object.assign(sandbox, { lines: log.lines });
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json(): Loose;
}

export async function send(
  url: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  method = 'POST',
): Promise<Answer> {
  const res = await fetch(url + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body:
      method === 'GET'
        ? undefined
        : typeof body === 'string' || body instanceof Uint8Array
          ? body
          : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

export async function get(url: string, path: string): Promise<Loose> {
  const res = await fetch(url + path);
  return res.json();
}

export function eventHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { serviceKey: SERVICE_KEY, requestId: randomUUID(), 'Idempotency-Key': randomUUID(), ...extra };
}

export function postEvent(
  url: string,
  type: EventType,
  body: unknown,
  headers = eventHeaders(),
): Promise<Answer> {
  return send(url, kindByType(type)!.path, body, headers);
}

export function postStandard(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return send(url, '/collectors/products', body, { apiKey: API_KEY, ...headers });
}

export function postLegacy(
  url: string,
  body: unknown,
  path = '/searches/products',
  headers: Record<string, string> = {},
) {
  return send(url, path, body, { 'x-api-key': API_KEY, ...headers });
}

// ---- bodies -------------------------------------------------------------------------------

export function product(sku: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    '@type': 'Product',
    sku,
    name: [
      { '@value': `상품 ${sku}`, '@language': 'ko' },
      { '@value': `Product ${sku}`, '@language': 'en' },
    ],
    category: [{ '@type': 'CategoryCode', name: 'Shoes', codeValue: 'C-1' }],
    brand: { '@type': 'Brand', '@id': 'B-1', name: { '@value': 'Brand', '@language': 'en' } },
    description: [{ '@type': 'TextObject', text: 'A good product', inLanguage: 'en' }],
    offers: {
      '@type': 'Offer',
      sku,
      gtin: '8801234567893',
      mpn: `M-${sku}`,
      price: 12000,
      priceCurrency: 'KRW',
      availability: 'InStock',
      availabilityStarts: '2026-01-01T00:00:00Z',
      availabilityEnds: '2027-01-01T00:00:00Z',
      image: [{ '@type': 'ImageObject', contentUrl: 'https://img.example.com/a.jpg' }],
    },
    ...overrides,
  };
}

export function envelope(products: unknown[], id: string = randomUUID()): Record<string, unknown> {
  return {
    '@context': 'https://schema.org/',
    specversion: '1.0',
    id,
    type: 'create_product',
    agent: { '@type': 'Organization', name: 'test shop' },
    '@graph': products,
  };
}

export function legacyProduct(
  code: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    code,
    name: `Product ${code}`,
    brand: { code: 'B1', name: 'Brand' },
    categories: [{ largeCode: 'L1', largeName: 'Large' }],
    image: { mainUrl: 'https://img.example.com/a.jpg', detailUrls: [] },
    priceInfo: { currency: 'KRW', price: 1000, salePrice: 900 },
    createdAt: '2026-01-01T00:00:00Z',
    ...overrides,
  };
}

const agent = {
  '@type': 'Person',
  identifier: [
    { '@type': 'PropertyValue', propertyID: 'userId', value: 'u-1' },
    { '@type': 'PropertyValue', propertyID: 'memberId', value: 'm-1' },
    { '@type': 'PropertyValue', propertyID: 'cookieId', value: 'c-1' },
  ],
};

const offer = { '@type': 'Offer', price: 12000, priceCurrency: 'KRW' };
const orderLine = {
  '@type': 'OrderItem',
  orderedItem: { '@type': 'Product', sku: 'A-1', name: 'Shoe', offers: offer },
  orderQuantity: 1,
};
const wishItem = { '@type': 'OrderItem', orderedItem: { '@type': 'Product', sku: 'A-1', name: 'Shoe' } };
const itemList = {
  '@type': 'ItemList',
  numberOfItems: 2,
  itemListElement: [
    { '@type': 'ListItem', position: 1, item: { '@type': 'Product', sku: 'A-1', name: 'Shoe' } },
    { '@type': 'ListItem', position: 2, item: { '@type': 'Product', sku: 'A-2' } },
  ],
};

const OBJECTS: Record<EventType, unknown> = {
  view_product: {
    '@type': 'Product',
    sku: 'A-1',
    name: { '@value': '신발', '@language': 'ko' },
    offers: offer,
  },
  click_product: {
    '@type': 'ItemList',
    itemListElement: {
      '@type': 'ListItem',
      position: 3,
      item: { '@type': 'Product', sku: 'A-1', name: 'Shoe' },
    },
  },
  search_submitted: {
    '@type': 'Thing',
    actionOption: [{ '@type': 'PropertyValue', propertyID: 'color', value: 'red' }],
  },
  search_result: [itemList],
  add_to_wishlist: wishItem,
  remove_from_wishlist: [wishItem],
  add_to_cart: orderLine,
  remove_from_cart: orderLine,
  start_checkout: [orderLine],
  complete_purchase: [orderLine, orderLine],
  cancel_purchase: orderLine,
};

/** A valid event of each kind, with all the optional constants filled in. */
export function event(type: EventType): Record<string, Loose> {
  const kind = kindByType(type)!;
  const data: Record<string, unknown> = {
    '@context': 'https://schema.org/',
    '@type': kind.actionType,
    agent,
    object: OBJECTS[type],
    target: { '@type': 'EntryPoint', urlTemplate: 'https://shop.example.com/p/A-1' },
  };
  if (type === 'search_submitted') data.query = 'red shoes';
  return structuredClone({
    specversion: '1.0.0',
    id: kind.id,
    type,
    time: '2026-11-23T09:00:00Z',
    source: 'https://shop.example.com',
    datacontenttype: 'application/ld+json',
    dataschema: `https://schemas.example.com/schema/actions/${kind.dataschemaFile}`,
    data,
  });
}
