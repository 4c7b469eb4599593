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

/** The standard envelope with an empty `@graph`; the one place that knows the envelope's fields. */
export function standardEnvelope(id: string, settings: EnvelopeSettings): Record<string, unknown> {
  return {
    '@context': 'https://schema.org/',
    specversion: '1.0',
    id,
    type: settings.type,
    agent: { '@type': 'Organization', name: settings.agentName },
    '@graph': [],
  };
}

export function framingFor(id: string, settings: EnvelopeSettings): Framing {
  if (settings.format === 'legacy') return { head: '[', tail: ']' };
  const text = JSON.stringify(standardEnvelope(id, settings));
  const at = text.indexOf(GRAPH_MARK);
  const open = at + GRAPH_MARK.length - 1;
  return { head: text.slice(0, open), tail: text.slice(open) };
}

/** The request body: framing around the given products' JSON. */
export function buildBody(framing: Framing, parts: readonly string[]): string {
  return framing.head + parts.join(',') + framing.tail;
}
