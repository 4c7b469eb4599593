import { buildStandardEnvelope } from '../build/standard.js';
import type { PayloadFormat } from '../types.js';

/**
 * The framing around a batch's products. Standard: the envelope of DESIGN.md section 3 whose
 * `@graph` holds the products; legacy: a JSON array. The body is built as head + products + tail
 * from already serialized products, so each product is stringified exactly once.
 */
export interface EnvelopeSettings {
  format: PayloadFormat;
  type: 'create_product' | 'update_product';
  agentName: string;
}

export interface Framing {
  head: string;
  tail: string;
}

const GRAPH_MARK = '"@graph":[]';

export function framingFor(id: string, settings: EnvelopeSettings): Framing {
  if (settings.format === 'legacy') return { head: '[', tail: ']' };
  // The builder's envelope with an empty @graph, cut where the products go.
  const text = JSON.stringify(
    buildStandardEnvelope([], { id, type: settings.type, agentName: settings.agentName }),
  );
  const at = text.indexOf(GRAPH_MARK);
  const open = at + GRAPH_MARK.length - 1;
  return { head: text.slice(0, open), tail: text.slice(open) };
}

/** The request body: framing around the given products' JSON bytes, in one buffer. */
export function buildBody(framing: Framing, parts: readonly Uint8Array[]): Buffer {
  const head = Buffer.from(framing.head);
  const tail = Buffer.from(framing.tail);
  let size = head.length + tail.length + Math.max(0, parts.length - 1);
  for (const part of parts) size += part.length;
  const body = Buffer.allocUnsafe(size);
  let at = head.copy(body, 0);
  for (let i = 0; i < parts.length; i++) {
    if (i > 0) body[at++] = 0x2c; // ','
    body.set(parts[i], at);
    at += parts[i].length;
  }
  tail.copy(body, at);
  return body;
}
