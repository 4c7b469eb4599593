import type { PayloadFormat } from '../shared/types.js';

/**
 * The contract's sample request line (4.2) shows `/searches/products` with the standard API's
 * `apiKey` header; the endpoint list says `POST /collectors/products`, and `/searches/products`
 * is the legacy v0.3 path (`x-api-key`, an array of products). A standard upload aimed at it
 * would be refused by the service, so it gets a "did you mean" before anything is sent.
 */
export const SAMPLE_REQUEST_LINE = 'sample_request_line';

/** A one-line hint when a standard upload's path or URL is the sample's legacy path; else undefined. */
export function samplePathHint(format: PayloadFormat, path: string, apiUrl?: string): string | undefined {
  if (format !== 'standard') return undefined;
  let urlPath = '';
  if (apiUrl) {
    try {
      urlPath = new URL(apiUrl).pathname;
    } catch {
      urlPath = '';
    }
  }
  const legacy = /\/searches\/products\/?$/;
  const where = legacy.test(path)
    ? `the path ${path}`
    : legacy.test(urlPath)
      ? `the URL ${apiUrl}`
      : undefined;
  if (!where) return undefined;
  return `${where} is the legacy v0.3 endpoint shown in the contract's sample request line; did you mean POST /collectors/products? Standard payloads (apiKey, @graph) go to /collectors/products: give the host alone as the API URL and leave the path at its default (or use --format legacy for v0.3 arrays)`;
}
