import { isUtf8 } from 'node:buffer';
import { kindByType } from '../events/kinds.js';
import { errorMessage } from '../shared/errors.js';
import { isObject } from '../shared/is-object.js';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../shared/json-depth.js';
import { eventVerdict } from './events.js';
import {
  type LegacyKind,
  type ProductsOutcome,
  type ProductsWrite,
  processLegacy,
  processStandard,
} from './products.js';
import { type AnswerStyle, errorReply, type Reply } from './reply.js';

/**
 * A request's body, from bytes to verdict: depth check, UTF-8 decoding, JSON, and the schema.
 * Pure (no store, no clock, no I/O), so it runs on the sandbox's thread or, for large bodies, on
 * its ingest worker (src/sandbox/ingest-worker.ts), with the same answers. Events too: parsing
 * a 10 MiB event would hold the sandbox's thread for a tenth of a second or more.
 */
export type ProductEndpoint = { kind: 'standard' } | { kind: 'legacy'; legacy: LegacyKind };
export type IngestEndpoint = ProductEndpoint | { kind: 'event'; type: string };

export interface BodyOutcome extends ProductsOutcome {
  /** The standard envelope's `id`, for the "same envelope applied once" rule. */
  envelopeId?: string;
  write?: ProductsWrite & {
    /** The decoded text to store, when the received bytes are not exactly it (BOM, invalid UTF-8). */
    text?: string;
  };
  /** An accepted event: the decoded text to store. */
  eventText?: string;
  /** The event body was not JSON (or too deep): answered, but not remembered for its key. */
  unparsed?: boolean;
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

/** An event body's verdict; `eventText` is set when it is accepted. */
function processEventBody(type: string, bytes: Uint8Array): BodyOutcome {
  const kind = kindByType(type);
  if (!kind) throw new Error(`no event kind ${type}`);
  const parsed = parseJsonBody(bytes, 'problem');
  if ('reply' in parsed) return { reply: parsed.reply, unparsed: true };
  const refused = eventVerdict(kind, parsed.body);
  if (refused) return { reply: refused };
  return { reply: { status: 200, items: 1 }, eventText: parsed.text };
}

export function processBody(endpoint: IngestEndpoint, bytes: Uint8Array, appliesAt: string): BodyOutcome {
  return endpoint.kind === 'event'
    ? processEventBody(endpoint.type, bytes)
    : processProductBody(endpoint, bytes, appliesAt);
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
