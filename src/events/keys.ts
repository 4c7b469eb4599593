import { createHash, randomUUID } from 'node:crypto';
import { EVENT_KINDS, type EventKind } from './kinds.js';

/**
 * Idempotency-Keys of events (docs/events.md, "Idempotency-Keys"). By default a key is a
 * name-based UUID v5 (RFC 9562 section 5.5) of the event's identity under genser's own
 * namespace, so sending the same file twice, or resuming a crashed run, repeats every key and
 * the service stores each event once. `newKeys` gives a fresh UUID v4 per event instead.
 */

/** genser's namespace for event keys: UUID v5 of the URL `https://genser.dev/ns/events` in the URL namespace. */
export const EVENT_KEY_NAMESPACE = 'c53873e0-f768-594f-b34a-35d298af1614';

/**
 * Canonical JSON: object keys sorted by UTF-16 code unit, no whitespace, arrays in their order,
 * numbers and strings as JSON.stringify writes them. Two events that differ only in key order or
 * formatting have the same canonical form.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(record[key])}`);
  }
  return `{${parts.join(',')}}`;
}

function uuidBytes(uuid: string): Buffer {
  const hex = uuid.replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/i.test(hex)) throw new Error(`not a UUID: ${uuid}`);
  return Buffer.from(hex, 'hex');
}

function formatUuid(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/** RFC 9562 UUID version 5: SHA-1 of namespace and name, with version and variant bits set. */
export function uuidV5(name: string, namespace: string): string {
  const hash = createHash('sha1').update(uuidBytes(namespace)).update(name, 'utf8').digest();
  const bytes = hash.subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x50;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return formatUuid(bytes);
}

/**
 * The identity an event's key is made from. The contract's envelope `id` names the event kind
 * (EVT-VIEW-PRODUCT for every product view), not the event, so it is used only when it is not
 * one of those constants (a site that gives each event its own id); otherwise the identity is
 * the kind plus the canonical JSON of the whole event, which includes its time and agent.
 */
export function eventIdentity(event: Record<string, unknown>, kind: EventKind): string {
  const id = event.id;
  if (typeof id === 'string' && id.trim() !== '' && !KIND_IDS.has(id)) return `${kind.type}\nid:${id}`;
  return `${kind.type}\ncontent:${canonicalJson(event)}`;
}

/**
 * The identity of a backfilled purchase or cancellation: its kind and its order's id, nothing the
 * user may spell otherwise on another run (`--source`, `--country`, which move the event's
 * `source` and `time`): a second run repeats the keys, and two orders that are alike in every
 * other way (same customer, second and item) are two purchases.
 */
export function orderIdentity(kind: EventKind, orderId: string): string {
  return `${kind.type}\norder:${orderId}`;
}

const KIND_IDS: ReadonlySet<string> = new Set(EVENT_KINDS.map((k) => k.id));

export interface KeyOptions {
  /** Fresh UUID v4 keys instead of name-based ones (`--new-keys`). */
  newKeys?: boolean;
}

/** Makes the Idempotency-Key of one event. */
export function eventKey(identity: string, options: KeyOptions = {}): string {
  return options.newKeys ? randomUUID() : uuidV5(identity, EVENT_KEY_NAMESPACE);
}
