import { type EventKind, kindByType } from '../events/kinds.js';
import { fixEvent } from '../events/quirks.js';
import { checkSchema } from '../schema/bounded.js';
import { itemCappedNote, itemErrors } from './problems.js';
import { errorReply, type Reply } from './reply.js';

/**
 * Behaviour events: validated with the kind's schema (schemas/events/<type>.schema.json). An
 * event whose `type` belongs to another kind than the path's is a 400 that names the right path.
 * Returns why an event is refused (its 400 answer), or undefined when it is valid. Pure; called
 * from `processBody` (product-body.ts), here or on the ingest worker.
 */
export function eventVerdict(kind: EventKind, body: unknown): Reply | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return errorReply('problem', 400, 'invalid-body', 'the body must be a JSON object (one event)', [
      { index: null, sku: null, pointer: '', message: 'must be an object' },
    ]);
  }
  // The contract's sample quirks get the same "did you mean" as `genser events validate`.
  const { fixes } = fixEvent(body as Record<string, unknown>, kind.type);
  if (fixes.length > 0) {
    return errorReply(
      'problem',
      400,
      'sample-quirk',
      fixes.map((f) => f.message).join('; '),
      fixes.map((f) => ({ index: null, sku: null, pointer: f.pointer, message: `${f.code}: ${f.message}` })),
    );
  }
  const type = (body as Record<string, unknown>).type;
  if (typeof type === 'string' && type !== kind.type) {
    const other = kindByType(type);
    const message = other
      ? `a ${type} event belongs on ${other.path}, not ${kind.path}`
      : `"${type.slice(0, 60)}" is not an event type; this path takes ${kind.type}`;
    return errorReply('problem', 400, 'wrong-event-kind', message, [
      { index: null, sku: null, pointer: '/type', message },
    ]);
  }
  // Linear in the event, however many errors it holds (src/schema/bounded.ts).
  const check = checkSchema(kind.schemaName, body);
  if (!check.valid) {
    const errors = itemErrors(check.errors, null, () => null);
    const note = check.capped ? ` (${itemCappedNote(check.capped)})` : '';
    return errorReply(
      'problem',
      400,
      'invalid-event',
      `the ${kind.type} event is invalid: ${errors[0]?.pointer || '/'} ${errors[0]?.message ?? ''}`.trim() +
        note,
      errors,
    );
  }
  return undefined;
}
