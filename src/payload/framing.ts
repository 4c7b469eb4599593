import type { PayloadFormat } from '../shared/types.js';
import { buildStandardEnvelope } from './standard.js';

/**
 * The framing around a batch's products. Standard: the envelope of docs/architecture.md section 3 whose
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
