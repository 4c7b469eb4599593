import type { FieldKind } from './fields.js';
import type { FieldRule } from './mapping-file.js';
import {
  isoUtc,
  type Parsed,
  parseAvailability,
  parseBoolean,
  parseDate,
  parseDateIso,
  parseGtin,
  parseIdentifier,
  parseInteger,
  parseNumber,
} from './values.js';

/**
 * A scalar field's value (a source's, a constant or a default) as its kind's type, one function
 * a kind: the plan's row code (src/map/row-code.ts) names the rule's own, so no row decides its
 * kind again. Numbers and booleans a JSON feed gives are taken where they fit the kind; anything
 * else is read as text.
 */
export type ParseKind = (rule: FieldRule, value: unknown, zone: string) => Parsed<unknown>;

const textOf = (value: unknown): string => (typeof value === 'string' ? value : String(value));

/** The kinds that always give a value: text as it is, a code upper-cased (no Parsed answer made). */
export const PLAIN_KINDS = {
  text: textOf,
  code: (value: unknown): string => textOf(value).trim().toUpperCase(),
} satisfies Partial<Record<FieldKind, (value: unknown) => string>>;

export const PARSED_KINDS = {
  number: (rule, value) =>
    typeof value === 'number' ? { ok: true, value } : parseNumber(textOf(value), rule.number),
  integer: (rule, value) => {
    if (typeof value !== 'number') return parseInteger(textOf(value), rule.number);
    return Number.isSafeInteger(value)
      ? { ok: true, value }
      : { ok: false, error: { code: 'type', message: `must be a whole number; got \`${value}\`` } };
  },
  boolean: (rule, value) => {
    if (value === 0 || value === 1) return { ok: true, value: value === 1 };
    if (typeof value === 'boolean') return { ok: true, value };
    return parseBoolean(textOf(value), rule.booleans);
  },
  date: (rule, value, zone) =>
    typeof value === 'number' && Number.isSafeInteger(value) && value > 1e11
      ? { ok: true, value: isoUtc(value) }
      : parseDateIso(textOf(value), rule.zone ?? zone),
  epoch: (rule, value, zone) => {
    if (typeof value === 'number') return { ok: true, value };
    const d = parseDate(textOf(value), rule.zone ?? zone);
    return d.ok ? { ok: true, value: d.value.ms } : d;
  },
  availability: (_rule, value) =>
    typeof value === 'boolean'
      ? { ok: true, value: value ? 'InStock' : 'OutOfStock' }
      : parseAvailability(textOf(value)),
  gtin: (_rule, value) => parseGtin(textOf(value)),
  identifier: (_rule, value) => parseIdentifier(textOf(value)),
} satisfies Partial<Record<FieldKind, ParseKind>>;

/** How the row code types a scalar of this kind: `plain` never fails. */
export function typingOf(
  kind: FieldKind,
): { plain: keyof typeof PLAIN_KINDS } | { parsed: keyof typeof PARSED_KINDS } {
  if (kind in PARSED_KINDS) return { parsed: kind as keyof typeof PARSED_KINDS };
  return { plain: kind === 'code' ? 'code' : 'text' };
}
