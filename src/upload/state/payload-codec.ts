import { deflateRawSync, inflateRawSync } from 'node:zlib';

/**
 * How an accepted payload is kept in the state (docs/nightly.md, "State size"): raw deflate at
 * level 1 against a fixed dictionary of the payloads' own keys and values, after one tag byte.
 * The payload is the bulk of a state (about 1.1x the payload bytes before); this keeps it at a
 * fraction. A payload stored before this codec starts with `{` (JSON): it is read as it is, so
 * older states need no migration. The dictionary can never change: the bytes already stored need
 * it to be read; a better one takes a new tag.
 */
const DEFLATED_V1 = 0x01;

// Deflate looks back 32 KiB, nearest first: the most frequent pieces come last.
const DICTIONARY = Buffer.from(
  [
    // The legacy (v0.3) array's product.
    '{"code":"","name":"","brand":{"code":"","name":""},"image":{"mainUrl":"https://","detailUrls":["https://"],"productUrl":"https://"},',
    '"priceInfo":{"currency":"KRW","price":0,"salePrice":0,"salePercent":0},"createdAt":"T00:00:00Z","isInStock":true,',
    '"attribute":{"keywords":[""],"colors":[""]},"categories":[{"largeCode":"","largeName":"","midCode":"","midName":""}],',
    '"customs":[{"name":"","values":[""]}],"createdAtEpochMilli":',
    // The standard (JSON-LD) product.
    '{"@type":"Product","sku":"","name":[{"@value":"","@language":"en"},{"@value":"","@language":"ja"},',
    '"category":[{"@type":"CategoryCode","name":[{"@value":"","@language":"ko"}],"codeValue":""}],',
    '"brand":{"@type":"Brand","@id":"","name":{"@value":"","@language":"ko"}},',
    '"description":[{"@type":"TextObject","text":"","inLanguage":"en"},{"@type":"TextObject","text":"","inLanguage":"ko"}],',
    '"additionalProperty":[{"@type":"PropertyValue","propertyID":"","value":""}],',
    '"url":{"@value":"https://","@language":"ko"},',
    '"offers":{"@type":"Offer","sku":"","gtin":"","mpn":"","price":0,"priceCurrency":"USD","priceCurrency":"KRW",',
    '"availability":"OutOfStock","availability":"PreOrder","availability":"InStock",',
    '"availabilityStarts":"T00:00:00Z","availabilityEnds":"T23:59:59Z",',
    '"image":[{"@type":"ImageObject","contentUrl":"https://"}]},"name":[{"@value":"","@language":"ko"}],',
  ].join(''),
);

const OPTIONS = { level: 1, dictionary: DICTIONARY };

/** The bytes to store for an accepted payload's exact JSON bytes. */
export function storedPayload(json: Uint8Array): Uint8Array {
  const deflated = deflateRawSync(json, OPTIONS);
  if (deflated.length + 1 >= json.length) return json;
  const out = Buffer.allocUnsafe(deflated.length + 1);
  out[0] = DEFLATED_V1;
  deflated.copy(out, 1);
  return out;
}

/** The exact JSON bytes of a stored payload (either form). */
export function payloadBytes(stored: Uint8Array): Uint8Array {
  if (stored[0] !== DEFLATED_V1) return stored;
  const body = Buffer.from(stored.buffer, stored.byteOffset + 1, stored.byteLength - 1);
  return inflateRawSync(body, { dictionary: DICTIONARY });
}
