import type { ErrorObject } from 'ajv';
import { cappedNote, checkSchema, DETAIL_LIMITS } from '../schema/bounded.js';
import { EVENT_TYPES, type EventKind, kindByPath, kindByType } from './kinds.js';
import { fixEvent } from './quirks.js';

/**
 * Which kind an event is, and whether its schema accepts it. Pure: no I/O beyond the bundled
 * schemas. The kind comes from `--type` when given, else from the event's own `type`, else
 * from its envelope `id` (both optional in the contract).
 */

export interface EventProblem {
  /** JSON pointer inside the event, `''` for the event itself. */
  pointer: string;
  message: string;
  /** A named sample quirk (src/events/quirks.ts), when the problem is one. */
  code?: string;
}

export type EventCheck =
  | { ok: true; kind: EventKind }
  | { ok: false; kind?: EventKind; problems: EventProblem[] };

/**
 * Checks an event, naming each sample quirk once (with "did you mean" and the fix) and then
 * checking the event as fixed, so one cause never gives a second, misleading schema error.
 */
export function checkEvent(event: unknown, forcedType?: string): EventCheck {
  if (event === null || typeof event !== 'object' || Array.isArray(event))
    return checkFixed(event, forcedType);
  const { event: fixed, fixes } = fixEvent(event as Record<string, unknown>, forcedType);
  const check = checkFixed(fixed, forcedType);
  if (fixes.length === 0) return check;
  const quirks: EventProblem[] = fixes.map((f) => ({ pointer: f.pointer, message: f.message, code: f.code }));
  return { ok: false, kind: check.kind, problems: [...quirks, ...(check.ok ? [] : check.problems)] };
}

const byId = new Map<string, string>();

export function kindOf(event: Record<string, unknown>, forced?: string): EventKind | undefined {
  if (forced) return kindByType(forced) ?? kindByPath(forced);
  if (typeof event.type === 'string' && kindByType(event.type)) return kindByType(event.type);
  if (typeof event.id === 'string') {
    if (byId.size === 0) for (const t of EVENT_TYPES) byId.set(kindByType(t)!.id, t);
    const type = byId.get(event.id);
    if (type) return kindByType(type);
  }
  return undefined;
}

function describe(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return `is missing required member "${String(p.missingProperty)}"`;
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    case 'enum':
      // The ISO 4217 list (shared with products) is too long to print.
      if (e.schemaPath.includes('currencyCode'))
        return 'must be an ISO 4217 currency code such as KRW, USD or JPY';
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
    case 'type':
      return `must be ${String(p.type).replace(',', ' or ')}`;
    case 'contains':
      return 'must contain the identifiers userId, memberId and cookieId';
    case 'format':
      return `must be a ${String(p.format)} (ISO 8601, e.g. 2026-11-23T09:00:00Z)`;
    case 'pattern':
      return e.instancePath.endsWith('/time')
        ? 'must be in UTC (end with Z or +00:00)'
        : `does not have the expected form (${String(p.pattern)})`;
    default:
      return e.message ?? e.keyword;
  }
}

/** ajv reports every branch of an anyOf; keep the most specific errors, one per pointer. */
function simplify(errors: ErrorObject[]): EventProblem[] {
  // A value an anyOf allows in another form (an array of order lines where one line is also
  // allowed): that branch's "must be object" is noise once the matching branch went deeper.
  const deeper = (path: string) => errors.some((e) => e.instancePath.startsWith(`${path}/`));
  const specific = errors.filter(
    (e) =>
      !['anyOf', 'allOf', 'oneOf', 'if'].includes(e.keyword) &&
      !(e.keyword === 'type' && deeper(e.instancePath)),
  );
  const seen = new Set<string>();
  const out: EventProblem[] = [];
  for (const e of specific.length > 0 ? specific : errors) {
    const key = `${e.instancePath}|${e.keyword}|${JSON.stringify(e.params)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ pointer: e.instancePath, message: describe(e) });
  }
  return out;
}

function checkFixed(event: unknown, forcedType?: string): EventCheck {
  if (event === null || typeof event !== 'object' || Array.isArray(event)) {
    return { ok: false, problems: [{ pointer: '', message: 'an event must be a JSON object' }] };
  }
  const record = event as Record<string, unknown>;
  const kind = kindOf(record, forcedType);
  if (!kind) {
    const why = forcedType
      ? `unknown event type "${forcedType}"`
      : 'cannot tell the event kind: it has no known "type" or "id"';
    return {
      ok: false,
      problems: [
        { pointer: forcedType ? '' : '/type', message: `${why}; use one of ${EVENT_TYPES.join(', ')}` },
      ],
    };
  }
  if (typeof record.type === 'string' && record.type !== kind.type) {
    return {
      ok: false,
      kind,
      problems: [{ pointer: '/type', message: `is "${record.type}" but the event is sent as ${kind.type}` }],
    };
  }
  // Linear in the event, however many errors it holds (src/schema/bounded.ts).
  const check = checkSchema(kind.schemaName, event);
  if (check.valid) return { ok: true, kind };
  const problems = simplify(check.errors);
  if (check.capped)
    problems.push({
      pointer: '',
      message: `more problems may be unlisted: ${cappedNote(check.capped, DETAIL_LIMITS, (p) => p || '/')}`,
    });
  return { ok: false, kind, problems };
}
