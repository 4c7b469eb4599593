import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventKind } from '../events/kinds.js';
import { declaredTooLarge, encodingProblem, readBody } from './body.js';
import type { FaultDecision, Faults } from './faults.js';
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

interface KeyDigests {
  api: Buffer;
  service: Buffer;
}

function checkKey(
  req: IncomingMessage,
  endpoint: Endpoint,
  style: AnswerStyle,
  digests: KeyDigests,
): Reply | undefined {
  const [name, wire, expected] =
    endpoint.kind === 'event'
      ? ['serviceKey', 'servicekey', digests.service]
      : endpoint.kind === 'standard'
        ? ['apiKey', 'apikey', digests.api]
        : ['x-api-key', 'x-api-key', digests.api];
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

/** The fault the sandbox was told to play, as an answer. */
function faultReply(fault: Exclude<FaultDecision, { kind: 'none' }>, style: AnswerStyle): Reply {
  if (fault.kind === 'rate-limited') {
    const r = errorReply(style, 429, 'rate-limited', 'too many requests per second (--rate-limit)');
    return { ...r, headers: { 'retry-after': String(fault.retryAfterSeconds) } };
  }
  if (fault.kind === 'reset') return { status: 0, reset: true };
  return errorReply(style, fault.status, 'unavailable', 'service temporarily unavailable (--fail-rate)');
}

/** Content type, Idempotency-Key and requestId headers, checked before the body is read. */
function headerProblem(
  req: IncomingMessage,
  endpoint: Endpoint,
  style: AnswerStyle,
  key: string | undefined,
  requestId: string | null,
): Reply | undefined {
  if (!isJsonContentType(header(req, 'content-type')))
    return errorReply(
      style,
      415,
      'unsupported-media-type',
      'Content-Type must be application/json or application/ld+json',
    );
  if (key === undefined && endpoint.kind === 'event')
    return errorReply(style, 400, 'missing-idempotency-key', 'missing Idempotency-Key header (a UUID v4)');
  if (key !== undefined && !isValidIdempotencyKey(key))
    return errorReply(
      style,
      400,
      'malformed-idempotency-key',
      'malformed Idempotency-Key: expected a UUID, 36 characters with hyphens or 32 without',
    );
  if (endpoint.kind === 'event' && !requestId)
    return errorReply(style, 400, 'missing-request-id', 'missing requestId header');
  return undefined;
}

/** The body, or the answer that ends the request (too large, aborted, not decodable). */
async function bodyOf(r: Received, maxBytes: number): Promise<Buffer | Reply> {
  const tooLarge = () => ({
    ...errorReply(r.style, 413, 'too-large', `the body is larger than ${maxBytes} bytes`),
    close: true,
  });
  if (declaredTooLarge(r.req, maxBytes)) return tooLarge();
  const read = await readBody(r.req, maxBytes);
  if (read.kind === 'too-large') return tooLarge();
  if (read.kind === 'aborted') return { status: 0, reset: true };
  const unreadable = encodingProblem(read);
  if (unreadable) return errorReply(r.style, unreadable.status, unreadable.code, unreadable.detail);
  if (read.kind !== 'ok') return { status: 0, reset: true };
  return read.body;
}

/** The ingest endpoints' handler: `handle(req, path, endpoint)` answers one request. */
export function ingestHandler(s: IngestSettings) {
  const route = new IngestRoute(s);
  return (req: IncomingMessage, path: string, endpoint: Endpoint) => route.handle(req, path, endpoint);
}

class IngestRoute {
  private readonly digests: KeyDigests;
  private readonly inFlight = new InFlight();

  constructor(private readonly s: IngestSettings) {
    this.digests = { api: digest(s.apiKey), service: digest(s.serviceKey) };
  }

  async handle(req: IncomingMessage, path: string, endpoint: Endpoint): Promise<Reply> {
    const style: AnswerStyle = endpoint.kind === 'legacy' ? 'legacy' : 'problem';
    const fault = this.s.faults.decide();
    if (fault.kind !== 'none') return faultReply(fault, style);
    const denied = checkKey(req, endpoint, style, this.digests);
    if (denied) return denied;
    const key = header(req, 'idempotency-key');
    const requestId = header(req, 'requestid') ?? null;
    const refused = headerProblem(req, endpoint, style, key, requestId);
    if (refused) return refused;
    if (key !== undefined && !this.inFlight.tryEnter(key))
      return errorReply(
        style,
        409,
        'request-in-flight',
        'a request with this Idempotency-Key is still being processed',
      );
    try {
      return await this.receive({
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
      if (key !== undefined) this.inFlight.leave(key);
    }
  }

  private async receive(r: Received): Promise<Reply> {
    const body = await bodyOf(r, this.s.maxBodyBytes);
    if (!Buffer.isBuffer(body)) return body;
    const nowMs = this.s.now().getTime();
    const expiredBefore = nowMs - this.s.idempotencyTtlMs;
    const print = fingerprint(r.path, body);
    if (r.key !== undefined) {
      const prior = this.s.store.getReply('key', r.key, expiredBefore);
      if (prior && prior.fingerprint === print) return replayOf(prior);
      if (prior)
        return errorReply(
          r.style,
          422,
          'idempotency-key-reused',
          'this Idempotency-Key was already used for a different request body',
        );
    }
    if (r.latencyMs > 0) await sleep(r.latencyMs);
    const done =
      r.endpoint.kind === 'event'
        ? await this.processEvent(r, r.endpoint.event.type, body)
        : await this.processProducts(r, r.endpoint, body, { print, nowMs, expiredBefore });
    if ('status' in done) return done;
    return this.commitAndAnswer(r, done, { print, nowMs });
  }

  /** Parsing and validating: on the ingest worker for large bodies, as for products. */
  private async processEvent(r: Received, type: EventKind['type'], body: Buffer): Promise<Done | Reply> {
    const outcome = await this.s.ingest({ kind: 'event', type }, body, this.s.appliesAt());
    if (outcome.unparsed) return outcome.reply;
    const processed: Processed = { reply: outcome.reply };
    const text = outcome.eventText;
    if (text !== undefined)
      processed.commit = (store, now) => store.insertEvent(type, r.requestId, r.key ?? null, text, now);
    return { processed, envelopeId: undefined };
  }

  /** Decoding, parsing and validating: on the ingest worker for large bodies (BENCHMARKS.md). */
  private async processProducts(
    r: Received,
    endpoint: IngestEndpoint,
    body: Buffer,
    at: { print: string; nowMs: number; expiredBefore: number },
  ): Promise<Done | Reply> {
    const outcome = await this.s.ingest(endpoint, body, this.s.appliesAt());
    const envelopeId = outcome.envelopeId;
    if (envelopeId !== undefined) {
      const prior = this.s.store.getReply('envelope', envelopeId, at.expiredBefore);
      if (prior && prior.fingerprint === at.print) {
        if (r.key !== undefined) this.s.store.putReply('key', r.key, { ...prior, createdAt: at.nowMs });
        return replayOf(prior);
      }
    }
    const write = outcome.write;
    const processed: Processed = { reply: outcome.reply };
    // The received bytes are stored when they are exactly the text that was parsed.
    if (write)
      processed.commit = (store, now) => {
        // Checked against the store as it was before this body (docs/sandbox.md, "Create and update").
        if (write.envelopeType) store.noteMismatches(write.envelopeType, write.skus, now);
        store.upsertProducts(
          write.format,
          write.text ?? body,
          write.itemsKey,
          write.skus,
          write.inStock,
          now,
        );
      };
    return { processed, envelopeId };
  }

  private commitAndAnswer(r: Received, done: Done, at: { print: string; nowMs: number }): Reply {
    const { processed, envelopeId } = done;
    const reply = processed.reply;
    const stored: StoredResponse = {
      fingerprint: at.print,
      status: reply.status,
      contentType: reply.contentType ?? null,
      body: reply.body ?? '',
      createdAt: at.nowMs,
    };
    this.s.store.transaction(() => {
      processed.commit?.(this.s.store, at.nowMs);
      if (r.key !== undefined) this.s.store.putReply('key', r.key, stored);
      if (envelopeId !== undefined && processed.commit) this.s.store.putReply('envelope', envelopeId, stored);
    });
    if (r.lost)
      return {
        ...errorReply(
          r.style,
          500,
          'lost-response',
          'the request was processed but its answer was lost (--lost-rate)',
        ),
        items: reply.items,
      };
    return reply;
  }
}

/** A processed body, ready to store. */
interface Done {
  processed: Processed;
  envelopeId: string | undefined;
}
