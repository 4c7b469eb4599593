import { type EventKind, kindByType } from '../events/kinds.js';
import { fixEvent } from '../events/quirks.js';
import { getValidator } from '../validate/schemas.js';
import { itemErrors, MAX_LISTED_ERRORS } from './problems.js';
import type { Processed } from './products.js';
import { errorReply } from './reply.js';

/**
 * Behaviour events: validated with the kind's schema (schemas/events/<type>.schema.json). An
 * event whose `type` belongs to another kind than the path's is a 400 that names the right path.
 */
export function processEvent(
  kind: EventKind,
  body: unknown,
  requestId: string | null,
  idempotencyKey: string | null,
  raw: string,
): Processed {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return {
      reply: errorReply('problem', 400, 'invalid-body', 'the body must be a JSON object (one event)', [
        { index: null, sku: null, pointer: '', message: 'must be an object' },
      ]),
    };
  }
  // The contract's sample quirks get the same "did you mean" as `genser events validate`.
  const { fixes } = fixEvent(body as Record<string, unknown>, kind.type);
  if (fixes.length > 0) {
    return {
      reply: errorReply(
        'problem',
        400,
        'sample-quirk',
        fixes.map((f) => f.message).join('; '),
        fixes.map((f) => ({
          index: null,
          sku: null,
          pointer: f.pointer,
          message: `${f.code}: ${f.message}`,
        })),
      ),
    };
  }
  const type = (body as Record<string, unknown>).type;
  if (typeof type === 'string' && type !== kind.type) {
    const other = kindByType(type);
    const message = other
      ? `a ${type} event belongs on ${other.path}, not ${kind.path}`
      : `"${type.slice(0, 60)}" is not an event type; this path takes ${kind.type}`;
    return {
      reply: errorReply('problem', 400, 'wrong-event-kind', message, [
        { index: null, sku: null, pointer: '/type', message },
      ]),
    };
  }
  const validate = getValidator(kind.schemaName);
  if (!validate(body)) {
    const errors = itemErrors(validate.errors ?? [], null, () => null).slice(0, MAX_LISTED_ERRORS);
    return {
      reply: errorReply(
        'problem',
        400,
        'invalid-event',
        `the ${kind.type} event is invalid: ${errors[0]?.pointer || '/'} ${errors[0]?.message ?? ''}`.trim(),
        errors,
      ),
    };
  }
  return {
    reply: { status: 200, items: 1 },
    commit: (store, now) => store.insertEvent(kind.type, requestId, idempotencyKey, raw, now),
  };
}
