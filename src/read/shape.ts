import { isObject } from '../shared/is-object.js';
import type { SourceRecord } from '../shared/types.js';
import { jsonSyntaxError } from './json-syntax.js';

/** A legacy v0.3 object: a product (`code` with nested priceInfo/categories/image/brand) or a filter entry. */
export function isLegacyObject(value: Record<string, unknown>): boolean {
  if ('code' in value) {
    return (
      isObject(value.priceInfo) ||
      Array.isArray(value.categories) ||
      isObject(value.image) ||
      isObject(value.brand)
    );
  }
  return 'name' in value && Array.isArray(value.values) && Object.keys(value).length <= 3;
}

/** A standard JSON-LD product node. */
export function isProductNode(value: Record<string, unknown>): boolean {
  const type = value['@type'];
  return type === 'Product' || (Array.isArray(type) && type.includes('Product'));
}

/** The shape of one object read from JSON or NDJSON. */
export function shapeOf(value: Record<string, unknown>): SourceRecord['shape'] {
  if (isProductNode(value)) return 'graph';
  if (isLegacyObject(value)) return 'legacy';
  return 'rows';
}

/**
 * JSON.parse's message without the echo of the input (V8 quotes the whole text in some
 * messages), and the offset it names, if any.
 */
export function jsonParseDetail(err: unknown): { reason: string; offset?: number } {
  const message = err instanceof Error ? err.message : String(err);
  const at = /at position (\d+)/.exec(message);
  let reason = message
    .replace(/ in JSON at position \d+.*$/s, '')
    .replace(/, (\.\.\.)?".*" is not valid JSON$/s, '');
  if (reason.length > 120) reason = `${reason.slice(0, 119)}…`;
  return at ? { reason, offset: Number(at[1]) } : { reason };
}

/** Why and where (when known) JSON.parse refused `text`: from the strict locator, else from V8's message. */
export function syntaxDetail(text: string, err: unknown): { reason: string; offset?: number } {
  return jsonSyntaxError(text) ?? jsonParseDetail(err);
}

/** Line and column (from 1) of `offset` in `text` whose first character is on `line`. */
export function positionIn(text: string, offset: number, line: number): { line: number; column: number } {
  let lineStart = 0;
  let at = text.indexOf('\n');
  while (at !== -1 && at < offset) {
    line++;
    lineStart = at + 1;
    at = text.indexOf('\n', at + 1);
  }
  return { line, column: offset - lineStart + 1 };
}
