import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventKind } from '../events/kinds.js';
import { declaredTooLarge, encodingProblem, readBody } from './body.js';
import type { Faults } from './faults.js';
import { fingerprint, InFlight, isValidIdempotencyKey } from './idempotency.js';
import type { BodyOutcome, IngestEndpoint } from './product-body.js';
import type { LegacyKind, Processed } from './products.js';
import { type AnswerStyle, errorReply, type Reply } from './reply.js';
import type { SandboxStore, StoredResponse } from './store.js';

/**
 * The contract's keyed endpoints (events, standard and legacy products) and the order of their
 * checks: faults, key, content type, idempotency, body size, JSON, schema, then the store.
 */
export type Endpoint =
  | { kind: 'event'; event: EventKind }
  | { kind: 'standard' }
  | { kind: 'legacy'; legacy: LegacyKind };

export interface IngestSettings {
  store: SandboxStore;
  faults: Faults;
  apiKey: string;
  serviceKey: string;
  maxBodyBytes: number;
  idempotencyTtlMs: number;
  now: () => Date;
  /** When products received now become searchable (ISO), for the 200 answers. */
  appliesAt: () => string;
  /** A request's body to its verdict (`processBody`, here or on the ingest worker). */
  ingest(endpoint: IngestEndpoint, body: Buffer, appliesAt: string): Promise<BodyOutcome>;
}

const JSON_TYPES = new Set(['application/json', 'application/ld+json']);

function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const semi = header.indexOf(';');
  return JSON_TYPES.has((semi === -1 ? header : header.slice(0, semi)).trim().toLowerCase());
}

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time comparison; the key must match exactly (stray spaces are a wrong key). */
function sameKey(given: string, expected: Buffer): boolean {
  return timingSafeEqual(digest(given), expected);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
}

function replayOf(stored: StoredResponse): Reply {
  return {
    status: stored.status,
    contentType: stored.contentType ?? undefined,
    body: stored.body === '' ? undefined : stored.body,
    headers: { 'idempotent-replayed': 'true' },
  };
}

/** What one request carries past the header checks, for reading and storing its body. */
interface Received {
  req: IncomingMessage;
  path: string;
  endpoint: Endpoint;
  style: AnswerStyle;
  key: string | undefined;
  requestId: string | null;
  latencyMs: number;
  lost: boolean;
}

/** The ingest endpoints' handler: `handle(req, path, endpoint)` answers one request. */
export function ingestHandler(s: IngestSettings) {
  const apiKeyDigest = digest(s.apiKey);
  const serviceKeyDigest = digest(s.serviceKey);
  const inFlight = new InFlight();

  function checkKey(req: IncomingMessage, endpoint: Endpoint, style: AnswerStyle): Reply | undefined {
    const [name, wire, expected] =
      endpoint.kind === 'event'
        ? ['serviceKey', 'servicekey', serviceKeyDigest]
        : endpoint.kind === 'standard'
          ? ['apiKey', 'apikey', apiKeyDigest]
          : ['x-api-key', 'x-api-key', apiKeyDigest];
    const given = header(req, wire);
    // Never echo the key, right or wrong.
    if (given === undefined && endpoint.kind === 'legacy' && header(req, 'apikey') !== undefined) {
      // The contract's sample request line (4.2) shows /searches/products with the standard API's header.
      return errorReply(
        style,
        400,
        'sample-request-line',
        "an apiKey header on a legacy path: the contract's sample request line shows /searches/products for the standard API; did you mean POST /collectors/products? The legacy v0.3 API here takes x-api-key and an array of products",
      );
    }
    if (given === undefined) return errorReply(style, 401, 'unauthorized', `missing ${name} header`);
    if (!sameKey(given, expected))
      return errorReply(style, 401, 'unauthorized', `wrong ${name}: check the value and stray spaces`);
    return undefined;
  }

  async function handle(req: IncomingMessage, path: string, endpoint: Endpoint): Promise<Reply> {
    const style: AnswerStyle = endpoint.kind === 'legacy' ? 'legacy' : 'problem';
    const fault = s.faults.decide();
    if (fault.kind === 'rate-limited') {
      const r = errorReply(style, 429, 'rate-limited', 'too many requests per second (--rate-limit)');
      return { ...r, headers: { 'retry-after': String(fault.retryAfterSeconds) } };
    }
    if (fault.kind === 'reset') return { status: 0, reset: true };
    if (fault.kind === 'fail')
      return errorReply(style, fault.status, 'unavailable', 'service temporarily unavailable (--fail-rate)');

    const denied = checkKey(req, endpoint, style);
    if (denied) return denied;
    if (!isJsonContentType(header(req, 'content-type')))
      return errorReply(
        style,
        415,
        'unsupported-media-type',
        'Content-Type must be application/json or application/ld+json',
      );
    const key = header(req, 'idempotency-key');
    if (key === undefined && endpoint.kind === 'event')
      return errorReply(style, 400, 'missing-idempotency-key', 'missing Idempotency-Key header (a UUID v4)');
    if (key !== undefined && !isValidIdempotencyKey(key))
      return errorReply(
        style,
        400,
        'malformed-idempotency-key',
        'malformed Idempotency-Key: expected a UUID, 36 characters with hyphens or 32 without',
      );
    const requestId = header(req, 'requestid') ?? null;
    if (endpoint.kind === 'event' && !requestId)
      return errorReply(style, 400, 'missing-request-id', 'missing requestId header');
    if (key !== undefined && !inFlight.tryEnter(key))
      return errorReply(
        style,
        409,
        'request-in-flight',
        'a request with this Idempotency-Key is still being processed',
      );
    try {
      return await receive({
        req,
        path,
        endpoint,
        style,
        key,
        requestId,
        latencyMs: fault.latencyMs,
        lost: fault.lost,
      });
    } finally {
      if (key !== undefined) inFlight.leave(key);
    }
  }

  async function receive(r: Received): Promise<Reply> {
    const { req, path, endpoint, style, key, requestId, latencyMs, lost } = r;
    const tooLarge = () => ({
      ...errorReply(style, 413, 'too-large', `the body is larger than ${s.maxBodyBytes} bytes`),
      close: true,
    });
    if (declaredTooLarge(req, s.maxBodyBytes)) return tooLarge();
    const read = await readBody(req, s.maxBodyBytes);
    if (read.kind === 'too-large') return tooLarge();
    if (read.kind === 'aborted') return { status: 0, reset: true };
    const unreadable = encodingProblem(read);
    if (unreadable) return errorReply(style, unreadable.status, unreadable.code, unreadable.detail);
    if (read.kind !== 'ok') return { status: 0, reset: true };

    const nowMs = s.now().getTime();
    const expiredBefore = nowMs - s.idempotencyTtlMs;
    const print = fingerprint(path, read.body);
    if (key !== undefined) {
      const prior = s.store.getReply('key', key, expiredBefore);
      if (prior && prior.fingerprint === print) return replayOf(prior);
      if (prior)
        return errorReply(
          style,
          422,
          'idempotency-key-reused',
          'this Idempotency-Key was already used for a different request body',
        );
    }
    if (latencyMs > 0) await sleep(latencyMs);

    let processed: Processed;
    let envelopeId: string | undefined;
    if (endpoint.kind === 'event') {
      // Parsing and validating: on the ingest worker for large bodies, as for products.
      const type = endpoint.event.type;
      const outcome = await s.ingest({ kind: 'event', type }, read.body, s.appliesAt());
      if (outcome.unparsed) return outcome.reply;
      processed = { reply: outcome.reply };
      const text = outcome.eventText;
      if (text !== undefined)
        processed.commit = (store, now) => store.insertEvent(type, requestId, key ?? null, text, now);
    } else {
      // Decoding, parsing and validating: on the ingest worker for large bodies (BENCHMARKS.md).
      const outcome = await s.ingest(endpoint, read.body, s.appliesAt());
      envelopeId = outcome.envelopeId;
      if (envelopeId !== undefined) {
        const prior = s.store.getReply('envelope', envelopeId, expiredBefore);
        if (prior && prior.fingerprint === print) {
          if (key !== undefined) s.store.putReply('key', key, { ...prior, createdAt: nowMs });
          return replayOf(prior);
        }
      }
      const write = outcome.write;
      processed = { reply: outcome.reply };
      // The received bytes are stored when they are exactly the text that was parsed.
      if (write)
        processed.commit = (store, now) => {
          // Checked against the store as it was before this body (docs/sandbox.md, "Create and update").
          if (write.envelopeType) store.noteMismatches(write.envelopeType, write.skus, now);
          store.upsertProducts(
            write.format,
            write.text ?? read.body,
            write.itemsKey,
            write.skus,
            write.inStock,
            now,
          );
        };
    }

    const reply = processed.reply;
    const stored: StoredResponse = {
      fingerprint: print,
      status: reply.status,
      contentType: reply.contentType ?? null,
      body: reply.body ?? '',
      createdAt: nowMs,
    };
    s.store.transaction(() => {
      processed.commit?.(s.store, nowMs);
      if (key !== undefined) s.store.putReply('key', key, stored);
      if (envelopeId !== undefined && processed.commit) s.store.putReply('envelope', envelopeId, stored);
    });
    if (lost)
      return {
        ...errorReply(
          style,
          500,
          'lost-response',
          'the request was processed but its answer was lost (--lost-rate)',
        ),
        items: reply.items,
      };
    return reply;
  }

  return handle;
}
