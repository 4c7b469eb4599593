import { createHash } from 'node:crypto';

/**
 * Idempotency-Key handling (IETF draft "The Idempotency-Key HTTP Header Field", docs/architecture.md
 * section 3). The key is a UUID: 36 characters with hyphens or 32 without.
 */
const KEY_FORMAT = /^(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})$/i;

export function isValidIdempotencyKey(key: string): boolean {
  return KEY_FORMAT.test(key);
}

/** Same path and same bytes: the same request. */
export function fingerprint(path: string, body: Buffer): string {
  return createHash('sha256').update(path).update('\n').update(body).digest('hex');
}

/** Keys whose first request is still being processed (a retry of it gets 409). */
export class InFlight {
  private readonly keys = new Set<string>();

  tryEnter(key: string): boolean {
    if (this.keys.has(key)) return false;
    this.keys.add(key);
    return true;
  }

  leave(key: string): void {
    this.keys.delete(key);
  }
}
