import { isObject } from '../shared/is-object.js';
import { parseJsonBytes } from '../shared/json-bytes.js';

type Json = Record<string, unknown>;

/** The one offer a product's price is read from: `offers`, or its first entry when a list. */
function offerOf(product: Json): Json | undefined {
  const offers = product.offers;
  const first = Array.isArray(offers) ? (offers[0] as unknown) : offers;
  return isObject(first) ? first : undefined;
}

/**
 * A product's price: `offers.price` (standard) or `price` (legacy); undefined when none is a
 * number. What the price-shock guard compares (docs/nightly.md), kept with each accepted SKU.
 */
export function priceOf(product: Json): number | undefined {
  const raw = offerOf(product)?.price ?? product.price;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/**
 * A product's price read from its JSON bytes: what `priceOf(JSON.parse(bytes))` says, without
 * building the object: for a payload whose price was not kept (src/upload/state/prices.ts).
 * Parsing a 2.8 KB payload takes ~20 us, scanning it ~8 us (the feed's workers price the object
 * for ~0.2 us, so rows carry their price). Only the top level and the offer are looked into; every
 * other value is skipped over, strings by their quotes. What the scan does not read itself (a
 * key with an escape, a top level that is not an object, bytes it cannot follow) is parsed.
 */
export function priceOfJson(bytes: Uint8Array): number | undefined {
  const top = membersOf(bytes, skipSpace(bytes, 0));
  if (top === undefined) return priceOf(parseJsonBytes(bytes));
  let offer: Found | undefined;
  if (top.offers !== undefined) {
    let at = top.offers.start;
    if (bytes[at] === LBRACKET) at = skipSpace(bytes, at + 1);
    if (bytes[at] === LBRACE) {
      offer = membersOf(bytes, at);
      if (offer === undefined) return priceOf(parseJsonBytes(bytes));
    }
  }
  // `offer.price ?? product.price`: a null price is no price.
  const own = offer?.price;
  const token = own !== undefined && bytes[own.start] !== NULL_START ? own : top.price;
  return token === undefined ? undefined : priceOfToken(bytes, token);
}

interface Span {
  start: number;
  end: number;
}

/** The last `price` and `offers` members of an object (as JSON.parse keeps the last of a key). */
interface Found {
  price?: Span;
  offers?: Span;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;
/** `n`: only `null` starts with it. */
const NULL_START = 0x6e;
const PRICE = [0x70, 0x72, 0x69, 0x63, 0x65];
const OFFERS = [0x6f, 0x66, 0x66, 0x65, 0x72, 0x73];

/** The members of the object at `at`; undefined when the scan cannot follow it. */
function membersOf(b: Uint8Array, at: number): Found | undefined {
  if (b[at] !== LBRACE) return undefined;
  const found: Found = {};
  let i = skipSpace(b, at + 1);
  if (b[i] === RBRACE) return found;
  for (;;) {
    if (b[i] !== QUOTE) return undefined;
    const keyEnd = stringEnd(b, i);
    if (keyEnd < 0) return undefined;
    const key = i + 1;
    const keyLength = keyEnd - 1 - key;
    for (let k = key; k < keyEnd - 1; k++) if (b[k] === BACKSLASH) return undefined;
    i = skipSpace(b, keyEnd);
    if (b[i] !== COLON) return undefined;
    const start = skipSpace(b, i + 1);
    const end = valueEnd(b, start);
    if (end < 0) return undefined;
    if (is(b, key, keyLength, PRICE)) found.price = { start, end };
    else if (is(b, key, keyLength, OFFERS)) found.offers = { start, end };
    i = skipSpace(b, end);
    if (b[i] === RBRACE) return found;
    if (b[i] !== COMMA) return undefined;
    i = skipSpace(b, i + 1);
  }
}

function is(b: Uint8Array, at: number, length: number, word: number[]): boolean {
  if (length !== word.length) return false;
  for (let k = 0; k < length; k++) if (b[at + k] !== word[k]) return false;
  return true;
}

function skipSpace(b: Uint8Array, i: number): number {
  while (i < b.length && (b[i] === 0x20 || b[i] === 0x0a || b[i] === 0x0d || b[i] === 0x09)) i++;
  return i;
}

/** Just past the string whose opening quote is at `i`; -1 when it does not end. */
function stringEnd(b: Uint8Array, i: number): number {
  for (let k = i + 1; k < b.length; k++) {
    if (b[k] === BACKSLASH) k++;
    else if (b[k] === QUOTE) return k + 1;
  }
  return -1;
}

/** Just past the value that starts at `i` (its nested strings skipped whole); -1 when it does not end. */
function valueEnd(b: Uint8Array, i: number): number {
  const first = b[i];
  if (first === QUOTE) return stringEnd(b, i);
  if (first === LBRACE || first === LBRACKET) {
    let depth = 0;
    for (let k = i; k < b.length; k++) {
      const c = b[k];
      if (c === QUOTE) {
        k = stringEnd(b, k) - 1;
        if (k < 0) return -1;
      } else if (c === LBRACE || c === LBRACKET) depth++;
      else if (c === RBRACE || c === RBRACKET) {
        depth--;
        if (depth === 0) return k + 1;
      }
    }
    return -1;
  }
  // A number, true, false or null: up to the next delimiter.
  let k = i;
  while (k < b.length && b[k] !== COMMA && b[k] !== RBRACE && b[k] !== RBRACKET && b[k] > 0x20) k++;
  return k > i ? k : -1;
}

/** A price token read as `priceOf` reads a value: a number, or text that is one. */
function priceOfToken(b: Uint8Array, t: Span): number | undefined {
  const text = Buffer.from(b.buffer, b.byteOffset + t.start, t.end - t.start).toString('utf8');
  return priceOf({ price: JSON.parse(text) });
}
