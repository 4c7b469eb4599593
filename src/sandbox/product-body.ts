import { isUtf8 } from 'node:buffer';
import { errorMessage } from '../errors.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from './depth.js';
import {
  type LegacyKind,
  type ProductsOutcome,
  type ProductsWrite,
  processLegacy,
  processStandard,
} from './products.js';
import { type AnswerStyle, errorReply } from './reply.js';

/**
 * A product request's body, from bytes to verdict: depth check, UTF-8 decoding, JSON, schema.
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

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

export function processProductBody(
  endpoint: ProductEndpoint,
  bytes: Uint8Array,
  appliesAt: string,
): BodyOutcome {
  const style: AnswerStyle = endpoint.kind === 'legacy' ? 'legacy' : 'problem';
  if (nestedDeeperThan(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)))
    return { reply: errorReply(style, 400, 'too-deep', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`) };
  const text = utf8.decode(bytes);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    return {
      reply: errorReply(style, 400, 'malformed-json', `malformed JSON: ${errorMessage(err).slice(0, 200)}`),
    };
  }
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
