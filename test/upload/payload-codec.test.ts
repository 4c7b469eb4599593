import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { payloadBytes, storedPayload } from '../../src/upload/state/payload-codec.js';

const root = join(import.meta.dirname, '..', '..');

/** Products as genser builds them: the standard and legacy payloads of the fixtures. */
function products(file: string): Buffer[] {
  const text = readFileSync(join(root, 'test', 'upload', 'fixtures', file), 'utf8');
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => Buffer.from(l));
}

describe('an accepted payload as the state keeps it', () => {
  // The legacy products are short and mostly Korean text, which deflate shrinks less.
  it.each([
    ['standard-products.ndjson', 0.35],
    ['legacy-products.ndjson', 0.45],
  ])('%s: stored at under %s of its bytes, read back byte for byte', (file, share) => {
    const all = products(file);
    expect(all.length).toBeGreaterThan(5);
    let json = 0;
    let stored = 0;
    for (const p of all) {
      const s = storedPayload(p);
      expect(Buffer.from(payloadBytes(s)).equals(p)).toBe(true);
      json += p.length;
      stored += s.length;
    }
    expect(stored / json).toBeLessThan(share);
  });

  it('reads a payload stored as plain JSON (by a genser before this codec) as it is', () => {
    const old = Buffer.from('{"@type":"Product","sku":"A"}');
    expect(payloadBytes(old)).toBe(old);
  });

  it('keeps a payload that deflate cannot shrink as it is', () => {
    const tiny = Buffer.from('{}');
    expect(storedPayload(tiny)).toBe(tiny);
    expect(payloadBytes(storedPayload(tiny))).toBe(tiny);
  });
});
