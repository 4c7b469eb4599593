import fc from 'fast-check';
import iconv from 'iconv-lite';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { Chunker, type ChunkKind, type FeedChunk } from '../../src/feed/chunker.js';
import { CP949_CHARS, csvText, SHIFT_JIS_CHARS } from './random-csv.js';

/** The chunks of `bytes` fed in pieces of `piece` bytes, cut at `target`. */
function chunks(
  kind: ChunkKind,
  bytes: Buffer,
  piece: number,
  target: number,
  delimiter?: string,
): FeedChunk[] {
  const chunker = new Chunker(kind, { target, delimiter });
  const out: FeedChunk[] = [];
  for (let at = 0; at < bytes.length; at += piece) out.push(...chunker.push(bytes.subarray(at, at + piece)));
  out.push(...chunker.end());
  return out;
}

/** Records as papaparse reads them with the file's line break (blank lines left out). */
function records(text: string, newline: '\n' | '\r\n'): string[][] {
  const { data } = Papa.parse<string[]>(text, { newline });
  return data.filter((r) => !(r.length === 1 && r[0] === ''));
}

const quotes = (b: Buffer) => b.reduce((n, c) => n + (c === 0x22 ? 1 : 0), 0);

describe('Chunker', () => {
  it('keeps the header apart, strips a BOM and cuts after line feeds', () => {
    const text = '\uFEFFsku,name\nA,"x\ny"\nB,b\nC,c\n';
    const out = chunks('csv', Buffer.from(text), 2, 1);
    expect(out.map((c) => c.body.toString())).toEqual(['A,"x\ny"\n', 'B,b\n', 'C,c\n']);
    expect(out.every((c) => c.header.toString() === 'sku,name\n')).toBe(true);
    expect(out.map((c) => c.offset)).toEqual([12, 20, 24]);
    expect(out.map((c) => c.index)).toEqual([0, 1, 2]);
  });

  it('keeps an Excel sep= line and blank lines with the header', () => {
    const out = chunks('csv', Buffer.from('sep=;\n\nsku;name\nA;a\n'), 100, 1);
    expect(out[0].header.toString()).toBe('sep=;\n\nsku;name\n');
    expect(out[0].body.toString()).toBe('A;a\n');
  });

  it('gives a header-only file one empty chunk, and cuts NDJSON at any line feed', () => {
    const only = chunks('csv', Buffer.from('sku,name'), 3, 1);
    expect(only.map((c) => [c.header.toString(), c.body.length])).toEqual([['sku,name', 0]]);
    const nd = chunks('ndjson', Buffer.from('{"a":"\\""}\n{"b":1}\n{"c":2}'), 4, 1);
    expect(nd.map((c) => c.body.toString())).toEqual(['{"a":"\\""}\n', '{"b":1}\n', '{"c":2}']);
    expect(nd.every((c) => c.header.length === 0)).toBe(true);
  });

  it('owns each body buffer, so it can be transferred', () => {
    for (const c of chunks('csv', Buffer.from('h\n1\n2\n3\n'), 1, 1))
      expect(c.body.byteLength === c.body.buffer.byteLength || c.body.byteLength === 0).toBe(true);
  });

  /** Checks the chunks of `text`; returns them with the header's text. */
  function checkCuts(text: string, piece: number, target: number, encoding = 'utf-8') {
    const bytes = iconv.encode(text, encoding);
    const out = chunks('csv', bytes, piece, target);
    const bom = text.startsWith('\uFEFF') ? 3 : 0;
    const header = out[0].header;
    // Concatenated, the chunks are the file (less its BOM).
    expect(Buffer.concat([header, ...out.map((c) => c.body)]).equals(bytes.subarray(bom))).toBe(true);
    let at = bom + header.length;
    let quoteCount = quotes(header);
    for (const c of out) {
      expect(c.offset).toBe(at);
      expect(c.header.equals(header)).toBe(true);
      at += c.body.length;
      quoteCount += quotes(c.body);
      // Every cut but the end of the file follows a line feed outside quotes.
      if (at < bytes.length) {
        expect(bytes[at - 1]).toBe(0x0a);
        expect(quoteCount % 2).toBe(0);
      }
    }
    return { out, header: iconv.decode(header, encoding), bom };
  }

  it('on random CSV with mixed line ends: gives the bytes back and cuts only after a line feed outside quotes', () => {
    fc.assert(
      fc.property(
        csvText({ oneLineEnd: false }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 200 }),
        (text, piece, target) => {
          checkCuts(text, piece, target);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('on random CSV: papaparse reads the same records from the chunks (header given) as from the file', () => {
    fc.assert(
      fc.property(
        csvText({ oneLineEnd: true }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 200 }),
        (text, piece, target) => {
          const { out, header, bom } = checkCuts(text, piece, target);
          // The header line's end is the file's (random values are quoted when they hold one).
          const newline = text[text.indexOf('\n') - 1] === '\r' ? '\r\n' : '\n';
          const whole = records(text.slice(bom ? 1 : 0), newline);
          const pieces = out.flatMap((c) => records(header + c.body.toString(), newline).slice(1));
          expect(pieces).toEqual(whole.slice(1));
        },
      ),
      { numRuns: 200 },
    );
  });

  it.each([
    ['cp949', CP949_CHARS],
    ['shift_jis', SHIFT_JIS_CHARS],
  ])(
    'on random %s CSV: cuts between characters, and papaparse reads the same records from the decoded chunks',
    (encoding, chars) => {
      fc.assert(
        fc.property(
          csvText({ oneLineEnd: true, chars, bom: false }),
          fc.integer({ min: 1, max: 64 }),
          fc.integer({ min: 1, max: 200 }),
          (text, piece, target) => {
            // Every character has its bytes in the encoding (none became `?`).
            expect(iconv.decode(iconv.encode(text, encoding), encoding)).toBe(text);
            const { out, header } = checkCuts(text, piece, target, encoding);
            const newline = text[text.indexOf('\n') - 1] === '\r' ? '\r\n' : '\n';
            const whole = records(text, newline);
            // Each chunk decodes on its own to whole characters (no U+FFFD from a split one).
            const bodies = out.map((c) => iconv.decode(c.body, encoding));
            expect(bodies.join('')).not.toContain('\uFFFD');
            const pieces = bodies.flatMap((body) => records(header + body, newline).slice(1));
            expect(pieces).toEqual(whole.slice(1));
          },
        ),
        { numRuns: 150 },
      );
    },
  );

  it('reads quotes as papaparse does: a quote inside an unquoted value is a plain character', () => {
    // A scan that toggled at every quote would cut inside row D's quoted line break.
    const text = 'sku,name\nA,5" screen\nB,"x"" y"\nC,"a" ,\nD,"two\nlines"\nE,e\n';
    const out = chunks('csv', Buffer.from(text), 3, 1);
    expect(out.map((c) => c.body.toString())).toEqual([
      'A,5" screen\n',
      'B,"x"" y"\n',
      'C,"a" ,\n',
      'D,"two\nlines"\n',
      'E,e\n',
    ]);
    // With `;` as the delimiter, `,"` does not start a quoted value: `"two` is a plain quote.
    const semi = chunks('csv', Buffer.from('a;b\nx,"y;1\nz;2\n'), 2, 1, ';');
    expect(semi.map((c) => c.body.toString())).toEqual(['x,"y;1\n', 'z;2\n']);
  });

  it('on random CSV with stray quotes in unquoted values: papaparse reads the same records from the chunks', () => {
    const stray = fc
      .tuple(csvText({ oneLineEnd: true }), fc.array(fc.nat(), { minLength: 4, maxLength: 4 }))
      .map(([text, at]) => {
        // Quotes put after letters and digits of unquoted values (an even number of quotes
        // before them in the well-formed text), never at a value's start.
        const outside = [...text.matchAll(/[aZ7](?=[a-zA-Z0-9 ])/g)]
          .map((m) => m.index! + 1)
          .filter((i) => (text.slice(0, i).match(/"/g)?.length ?? 0) % 2 === 0);
        if (outside.length === 0) return text;
        const picks = [...new Set(at.map((n) => outside[n % outside.length]))].sort((x, y) => y - x);
        let out = text;
        for (const i of picks) out = `${out.slice(0, i)}"${out.slice(i)}`;
        return out;
      });
    fc.assert(
      fc.property(
        stray,
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 200 }),
        (text, piece, target) => {
          const bytes = Buffer.from(text);
          const out = chunks('csv', bytes, piece, target);
          const bom = text.startsWith('\uFEFF') ? 1 : 0;
          const newline = text[text.indexOf('\n') - 1] === '\r' ? '\r\n' : '\n';
          const whole = records(text.slice(bom), newline);
          const header = out[0].header.toString();
          const pieces = out.flatMap((c) => records(header + c.body.toString(), newline).slice(1));
          expect(pieces).toEqual(whole.slice(1));
        },
      ),
      { numRuns: 200 },
    );
  });
});
