import { isUtf8 } from 'node:buffer';
import { errorMessage } from '../shared/errors.js';
import { isObject } from '../shared/is-object.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../shared/json-depth.js';
import {
  type LegacyKind,
  type ProductsOutcome,
  type ProductsWrite,
  processLegacy,
  processStandard,
} from './products.js';
import { type AnswerStyle, errorReply, type Reply } from './reply.js';

/**
 * A request's body, from bytes to verdict: depth check, UTF-8 decoding, JSON, and for products
 * the schema.
 * Pure (no store, no clock, no I/O), so it runs on the sandbox's thread or, for large bodies, on
 * its ingest worker (src/sandbox/ingest-worker.ts), with the same answers.
 */
export type ProductEndpoint = { kind: 'standard' } | { kind: 'legacy'; legacy: LegacyKind };

export interface BodyOutcome extends ProductsOutcome {
  /** The standard envelope's `id`, for the "same envelope applied once" rule. */
  envelopeId?: string;
  write?: ProductsWrite & {
    /** The decoded text to store, when the received bytes are not exactly it (BOM, invalid UTF-8). */
    text?: string;
  };
}

// Faster than Buffer#toString for Korean and Japanese text; a leading BOM is dropped, and bytes
// that are not UTF-8 read as U+FFFD (as a lenient service would).
const utf8 = new TextDecoder();

/** Whether the bytes are exactly the UTF-8 of their decoded text: valid, and no BOM to drop. */
function storesAsIs(body: Uint8Array): boolean {
  return !(body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) && isUtf8(body);
}

/** Any request body to JSON: refused (400) when nested too deep or malformed. */
export function parseJsonBody(
  bytes: Uint8Array,
  style: AnswerStyle,
): { body: unknown; text: string } | { reply: Reply } {
  if (nestedDeeperThan(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)))
    return { reply: errorReply(style, 400, 'too-deep', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`) };
  const text = utf8.decode(bytes);
  try {
    return { body: JSON.parse(text) as unknown, text };
  } catch (err) {
    return {
      reply: errorReply(style, 400, 'malformed-json', `malformed JSON: ${errorMessage(err).slice(0, 200)}`),
    };
  }
}

export function processProductBody(
  endpoint: ProductEndpoint,
  bytes: Uint8Array,
  appliesAt: string,
): BodyOutcome {
  const parsed = parseJsonBody(bytes, endpoint.kind === 'legacy' ? 'legacy' : 'problem');
  if ('reply' in parsed) return parsed;
  const { body, text } = parsed;
  const envelopeId =
    endpoint.kind === 'standard' && isObject(body) && typeof body.id === 'string' ? body.id : undefined;
  const outcome =
    endpoint.kind === 'standard'
      ? processStandard(body, text, appliesAt)
      : processLegacy(endpoint.legacy, body, appliesAt);
  const out: BodyOutcome = { reply: outcome.reply };
  if (envelopeId !== undefined) out.envelopeId = envelopeId;
  if (outcome.write) out.write = storesAsIs(bytes) ? outcome.write : { ...outcome.write, text };
  return out;
}
