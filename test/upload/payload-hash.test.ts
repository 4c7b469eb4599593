import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { payloadHash } from '../../src/upload/state/delta.js';

/**
 * The hash the upload state keeps of each accepted payload (src/upload/state/delta.ts): any
 * change to it would make every product of every state look changed on the next run.
 */
describe('payloadHash', () => {
  it("is the first 22 characters of the bytes' SHA-256 in base64url, for any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => {
        const want = createHash('sha256').update(bytes).digest('base64url').slice(0, 22);
        expect(payloadHash(bytes)).toBe(want);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the value states already hold', () => {
    expect(payloadHash(new Uint8Array(Buffer.from('{"@type":"Product","sku":"GS-0001"}')))).toBe(
      'NzgZNOT-rSx2KwnGlrr6vP',
    );
  });
});
