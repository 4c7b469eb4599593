import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foreignBreakAt } from '../../src/read/line-ends.js';
import type { Newline } from '../../src/read/sniff.js';

/**
 * The oracle: the search as it was before it looked for each break once (0979683), each
 * unquoted stretch scanned on its own, without its shortcuts for text with one kind of break.
 */
function foreignBreakAtBefore(text: string, newline: Newline, final: boolean): number {
  const end = !final && text.charCodeAt(text.length - 1) === 13 ? text.length - 1 : text.length;
  let i = 0;
  while (i < end) {
    const open = text.indexOf('"', i);
    const stop = open === -1 || open >= end ? end : open;
    const found = foreignInBefore(text, i, stop, newline);
    if (found !== -1 || stop === end) return found;
    const close = text.indexOf('"', open + 1);
    if (close === -1 || close >= end) return -1;
    i = close + 1;
  }
  return -1;
}

function foreignInBefore(text: string, from: number, to: number, newline: Newline): number {
  for (let at = from; at < to; at++) {
    const c = text[at];
    if (newline === '\n' && c === '\r') return at;
    if (newline === '\r' && c === '\n') return at;
    if (newline === '\r\n') {
      if (c === '\n' && text[at - 1] !== '\r') return at;
      if (c === '\r' && text[at + 1] !== '\n') return at;
    }
  }
  return -1;
}

describe('the first line break of another kind, outside quoted values', () => {
  it('is what a scan of each unquoted stretch finds, for any text of quotes, breaks and values', () => {
    const text = fc.string({ unit: fc.constantFrom('a', ',', '"', '\r', '\n', '\r\n', '""'), maxLength: 60 });
    fc.assert(
      fc.property(text, fc.constantFrom<Newline>('\n', '\r', '\r\n'), fc.boolean(), (t, newline, final) => {
        expect(foreignBreakAt(t, newline, final), JSON.stringify(t)).toBe(
          foreignBreakAtBefore(t, newline, final),
        );
      }),
      { numRuns: 20_000, endOnFailure: true },
    );
  });

  it('finds a break outside quotes after breaks inside them, and none inside a value left open', () => {
    expect(foreignBreakAt('a,"x\ry",b\n"p\rq"\rc\n', '\n', true)).toBe(15);
    expect(foreignBreakAt('a,"x\ry\r', '\n', true)).toBe(-1);
    expect(foreignBreakAt('a\r\n"x\ny"\r\nb\nc', '\r\n', true)).toBe(11);
    expect(foreignBreakAt('a\nb\r', '\n', false)).toBe(-1);
  });
});
