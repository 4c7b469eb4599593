import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import iconv from 'iconv-lite';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidBytesError } from '../../src/read/bad-bytes.js';
import { decodeChunks } from '../../src/read/decode.js';
import { detectEncoding } from '../../src/read/detect-encoding.js';
import { firstInvalidUtf8, incompleteTail } from '../../src/read/utf8.js';
import { fixture, read, readBytes, rejection } from './helpers.js';

const tmp = mkdtempSync(join(tmpdir(), 'genser-read-enc-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const KOREAN = {
  sku: 'K-1',
  name: '무선 이어폰 블루투스 5.3',
  brand_name: '삼성전자',
  description: '노이즈 캔슬링, 30시간 재생',
};
const JAPANESE = {
  sku: 'J-1',
  name: 'ワイヤレスイヤホン 高音質',
  brand_name: 'ソニー',
  description: 'ノイズキャンセリング、30時間再生',
};

describe('--encoding auto', () => {
  it('detects CP949 (Korean) and says so', async () => {
    const r = await read(fixture('cp949-korean.csv'));
    expect(r.issues).toEqual([]);
    expect(r.records[0].fields).toEqual(KOREAN);
    expect(r.records[1].fields.name).toBe('가습기 대용량 4L');
    expect(r.log.join('\n')).toMatch(/encoding cp949 \(auto-detected/);
  });

  it('detects Shift_JIS (Japanese) and says so', async () => {
    const r = await read(fixture('shift_jis-japanese.csv'));
    expect(r.issues).toEqual([]);
    expect(r.records[0].fields).toEqual(JAPANESE);
    expect(r.log.join('\n')).toMatch(/encoding shift_jis \(auto-detected/);
  });

  it('follows the UTF-16 byte order marks', async () => {
    const le = await read(fixture('utf16le-bom.csv'));
    expect(le.records[0].fields).toEqual(KOREAN);
    expect(le.log.join('\n')).toMatch(/utf-16le/);
    const be = await read(fixture('utf16be-bom.csv'));
    expect(be.records[0].fields).toEqual(JAPANESE);
    expect(be.records.map((x) => x.line)).toEqual([2, 3]);
  });

  it('recognises UTF-16LE without a byte order mark by its zero bytes', async () => {
    const r = await readBytes(iconv.encode('sku,name\nW-1,위젯\n', 'utf-16le'));
    expect(r.records[0].fields).toEqual({ sku: 'W-1', name: '위젯' });
    // Mostly Hangul: few ASCII zero bytes, still UTF-16 (not "binary").
    const name = '가나다라마바사아자차카타파하'.repeat(8);
    const be = await readBytes(iconv.encode(`상품,이름\n1,${name}\n2,${name}\n`, 'utf-16be'));
    expect(be.issues).toEqual([]);
    expect(be.records.map((x) => x.fields['이름'])).toEqual([name, name]);
  });

  it('tells a UTF-8 file with a few NUL bytes from UTF-16 without a byte order mark', () => {
    // Two NULs after ASCII bytes at odd offsets: (ASCII, 0) pairs, as in UTF-16LE. Still UTF-8.
    const nuls = Buffer.from('sku,name\nA-1,Le\0ather bag\nA-2,Canva\0s bag\n');
    expect([nuls.indexOf(0) % 2, nuls.lastIndexOf(0) % 2]).toEqual([1, 1]);
    expect(detectEncoding(nuls, true)).toEqual({ encoding: 'utf-8', reason: 'valid UTF-8' });
    // Lowercase Cyrillic in UTF-16LE is valid UTF-8 byte for byte (U+0430 is 30 04) and has few
    // ASCII pairs: many of them, all in one order, still say UTF-16.
    const word = 'привет'.repeat(60);
    const cyrillic = iconv.encode(
      `sku,имя\n1,${word}\n2,${word}\n3,${word}\n4,${word}\n5,${word}\n`,
      'utf-16le',
    );
    expect(firstInvalidUtf8(cyrillic)).toBe(-1);
    expect(detectEncoding(cyrillic, true).encoding).toBe('utf-16le');
  });

  it('stops with exit 2 naming the byte offset when the bytes are neither UTF-8 nor clearly CJK', async () => {
    const err = await rejection(read(fixture('latin1.csv')));
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('latin1.csv');
    expect(err.message).toContain('byte 0xE9 at byte offset 16');
    expect(err.hint).toMatch(/--encoding/);
    expect(err.hint).toMatch(/cp949/);
  });

  it('catches an invalid byte far past the detection sample, with byte offset and line', async () => {
    const rows = Array.from({ length: 100000 }, (_, i) => `R-${i},이름 ${i}`);
    const good = Buffer.from(`sku,name\n${rows.join('\n')}\n`);
    const bad = Buffer.concat([good, Buffer.from('R-x,'), Buffer.from([0xff]), Buffer.from('\n')]);
    const file = join(tmp, 'late-bad.csv');
    writeFileSync(file, bad);
    const seen: number[] = [];
    const err = await rejection(
      (async () => {
        const { readFeed } = await import('../../src/read/index.js');
        const { memoryLogger } = await import('../../src/shared/logger.js');
        for await (const item of readFeed(file, { encoding: 'auto' }, memoryLogger())) {
          if (item.type === 'record') seen.push(item.record.row);
        }
      })(),
    );
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(`byte 0xFF at byte offset ${good.length + 4}`);
    expect(err.message).toContain('line 100002');
    // Every complete row before the bad byte comes out first (streaming, no U+FFFD), then the error.
    expect(seen).toEqual(Array.from({ length: 100000 }, (_, i) => i + 1));
  });

  it('gives NDJSON lines and JSON elements before a late invalid byte too, then stops', async () => {
    const { readFeed } = await import('../../src/read/index.js');
    const { memoryLogger } = await import('../../src/shared/logger.js');
    const lines = Array.from({ length: 20000 }, (_, i) =>
      JSON.stringify({ sku: `N-${i}`, name: `이름 ${i}` }),
    );
    const cases: [string, Buffer][] = [
      ['late-bad.ndjson', Buffer.from(`${lines.join('\n')}\n{"sku": "N-x", "name": "`)],
      ['late-bad.json', Buffer.from(`[\n${lines.join(',\n')},\n{"sku": "N-x", "name": "`)],
    ];
    for (const [name, good] of cases) {
      const file = join(tmp, name);
      writeFileSync(file, Buffer.concat([good, Buffer.from([0xff]), Buffer.from('"}\n')]));
      const seen: string[] = [];
      const err = await rejection(
        (async () => {
          for await (const item of readFeed(file, { encoding: 'auto' }, memoryLogger())) {
            if (item.type === 'record') seen.push(String(item.record.fields.sku));
          }
        })(),
      );
      expect(err.exitCode, name).toBe(2);
      expect(err.message, name).toContain(`byte 0xFF at byte offset ${good.length}`);
      expect(seen, name).toEqual(Array.from({ length: 20000 }, (_, i) => `N-${i}`));
    }
  });
});

describe('explicit encodings', () => {
  it('reads euc-kr and cp949 given explicitly', async () => {
    expect((await read(fixture('euc-kr-korean.csv'), { encoding: 'euc-kr' })).records[0].fields).toEqual(
      KOREAN,
    );
    expect((await read(fixture('cp949-korean.csv'), { encoding: 'cp949' })).records[0].fields).toEqual(
      KOREAN,
    );
  });

  it('stops on bytes the given encoding cannot read instead of writing U+FFFD', async () => {
    const err = await rejection(read(fixture('shift_jis-japanese.csv'), { encoding: 'utf-8' }));
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(/not valid utf-8: invalid byte 0x[0-9A-F]{2} at byte offset \d+ \(line 2\)/);
    const bytes = Buffer.concat([
      iconv.encode('sku,name\nK-1,한글\nK-2,', 'cp949'),
      Buffer.from([0xff, 0x41, 0x0a]),
    ]);
    const cp = await rejection(readBytes(bytes, { encoding: 'cp949' }));
    expect(cp.message).toContain('not valid cp949');
    expect(cp.message).toContain('line 3');
  });
});

describe('UTF-16 cut in the middle of a character', () => {
  it('stops naming the odd last byte', async () => {
    const bytes = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      iconv.encode('sku,name\nU-1,x\n', 'utf-16le'),
      Buffer.from([0x41]),
    ]);
    const err = await rejection(readBytes(bytes));
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain(`invalid byte 0x41 at byte offset ${bytes.length - 1} (line 3)`);
  });
});

describe('bad bytes in JSON and NDJSON name their line too', () => {
  it('NDJSON and JSON', async () => {
    const bad = (text: string) =>
      Buffer.concat([Buffer.from(text), Buffer.from([0xc3, 0x28]), Buffer.from('"}\n')]);
    const nd = await rejection(
      readBytes(bad('{"a": 1}\n\n{"a": "x'), { inputType: 'ndjson', encoding: 'utf-8' }, 4),
    );
    expect(nd.message).toMatch(
      /<stdin>: the text is not valid utf-8: invalid byte 0xC3 at byte offset 18 \(line 3\)/,
    );
    const js = await rejection(
      readBytes(bad('[\n{"a": 1},\n{"a": "x'), { inputType: 'json', encoding: 'utf-8' }, 5),
    );
    expect(js.message).toMatch(/not valid utf-8: invalid byte 0xC3 at byte offset 20 \(line 3\)/);
  });
});

describe('multi-byte characters split across chunks', () => {
  const text = 'sku,name,description\nM-1,한글 이름,"쉼표, 그리고\n줄바꿈"\nM-2,日本語の名前,😀 emoji\n';
  for (const [encoding, bytes] of [
    ['utf-8', Buffer.from(text)],
    ['cp949', iconv.encode(text.replace('😀 emoji', '기타'), 'cp949')],
    [
      'shift_jis',
      iconv.encode(text.replace(/[한글이름쉼표그리고줄바꿈]/g, 'あ').replace('😀 emoji', 'ー'), 'shift_jis'),
    ],
    ['utf-16le', Buffer.concat([Buffer.from([0xff, 0xfe]), iconv.encode(text, 'utf-16le')])],
  ] as const) {
    it(`survive 1- and 3-byte chunks in ${encoding}`, async () => {
      const whole = await readBytes(bytes, { encoding }, bytes.length);
      expect(whole.records).toHaveLength(2);
      for (const size of [1, 3]) {
        const cut = await readBytes(bytes, { encoding }, size);
        expect(cut.records).toEqual(whole.records);
      }
      expect(whole.records[1].line).toBe(4);
    });
  }

  it('decodes UTF-8 identically whatever the chunking (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', maxLength: 60 }),
        fc.integer({ min: 1, max: 7 }),
        async (s, size) => {
          const bytes = Buffer.from(s);
          const chunks: Buffer[] = [];
          for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
          let out = '';
          for await (const t of decodeChunks(
            (async function* () {
              yield* chunks;
            })(),
            'utf-8',
          ))
            out += t;
          expect(out).toBe(s.startsWith('\uFEFF') ? s.slice(1) : s);
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('UTF-8 decoding by chunks', () => {
  const decodeAll = async (chunks: Buffer[]): Promise<string> => {
    let out = '';
    for await (const t of decodeChunks(
      (async function* () {
        yield* chunks;
      })(),
      'utf-8',
    ))
      out += t;
    return out;
  };

  it('decodes as fatal TextDecoder does, or fails at the first bad byte, whatever the chunking (property)', async () => {
    const piece = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 6 }).map((t) => Buffer.from(t)),
      fc.uint8Array({ minLength: 1, maxLength: 3 }).map((b) => Buffer.from(b)),
      fc.constant(Buffer.from([0xef, 0xbb, 0xbf])),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(piece, { maxLength: 8 }),
        fc.integer({ min: 1, max: 9 }),
        async (pieces, size) => {
          const bytes = Buffer.concat(pieces);
          const chunks: Buffer[] = [];
          for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
          const bad = firstInvalidUtf8(bytes);
          if (bad === -1) {
            expect(await decodeAll(chunks)).toBe(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
          } else {
            const err = await rejection(decodeAll(chunks));
            expect(err).toBeInstanceOf(InvalidBytesError);
            expect((err as InvalidBytesError).byteOffset).toBe(bad);
            expect((err as InvalidBytesError).byteValue).toBe(bytes[bad]);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

describe('UTF-8 validation and detection (pure)', () => {
  it('finds the first invalid byte exactly where TextDecoder fails (property)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 24 }), (bytes) => {
        const at = firstInvalidUtf8(bytes);
        let valid = true;
        try {
          new TextDecoder('utf-8', { fatal: true }).decode(bytes);
        } catch {
          valid = false;
        }
        expect(at === -1).toBe(valid);
        if (at !== -1) {
          // Everything before it is valid, and it is where decoding stops.
          expect(firstInvalidUtf8(bytes.subarray(0, at))).toBe(-1);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('knows an incomplete sequence at the end of a chunk', () => {
    const euro = Buffer.from('€'); // e2 82 ac
    expect(incompleteTail(euro)).toBe(0);
    expect(incompleteTail(euro.subarray(0, 2))).toBe(2);
    expect(incompleteTail(euro.subarray(0, 1))).toBe(1);
    expect(firstInvalidUtf8(euro.subarray(0, 2), 0, false)).toBe(-1);
    expect(firstInvalidUtf8(euro.subarray(0, 2), 0, true)).toBe(0);
  });

  it('reports the invalid byte with its offset from decodeChunks', async () => {
    const bytes = Buffer.concat([Buffer.from('abc€'), Buffer.from([0xc3, 0x28])]);
    const chunks = [bytes.subarray(0, 5), bytes.subarray(5)]; // cut inside €
    const err = await rejection(
      (async () => {
        for await (const _ of decodeChunks(
          (async function* () {
            yield* chunks;
          })(),
          'utf-8',
        )) {
          // drain
        }
      })(),
    );
    expect(err).toBeInstanceOf(InvalidBytesError);
    expect((err as InvalidBytesError).byteOffset).toBe(6);
    expect((err as InvalidBytesError).textBefore).toBe('€');
  });

  it('accepts a few rare (non KS X 1001) syllables among common Korean text', () => {
    const text = 'sku,name\nA-1,똠양꿍 라면 햏 매운맛 대용량 묶음 상품입니다\n';
    expect(detectEncoding(iconv.encode(text, 'cp949'), true).encoding).toBe('cp949');
  });

  it('tells Korean from Japanese and refuses to guess on Latin-1', () => {
    const ko = readFileSync(fixture('cp949-korean.csv'));
    const ja = readFileSync(fixture('shift_jis-japanese.csv'));
    expect(detectEncoding(ko, true).encoding).toBe('cp949');
    expect(detectEncoding(ja, true).encoding).toBe('shift_jis');
    expect(detectEncoding(readFileSync(fixture('latin1.csv')), true)).toMatchObject({
      encoding: undefined,
      invalidAt: 16,
    });
    expect(detectEncoding(Buffer.from('plain ascii'), true).encoding).toBe('utf-8');
  });

  it('detects random Korean and Japanese product text (property)', () => {
    const encodable = (enc: string) => (s: string) => iconv.decode(iconv.encode(s, enc), enc) === s;
    // Product text uses the 2,350 common syllables of KS X 1001 almost always: in CP949 both of
    // their bytes are 0xA1 or above (the others are Microsoft's extension, UHC).
    const hangul = fc
      .integer({ min: 0xac00, max: 0xd7a3 })
      .map((c) => String.fromCharCode(c))
      .filter((c) => iconv.encode(c, 'cp949').every((b) => b >= 0xa1));
    const kana = fc.integer({ min: 0x3041, max: 0x30f6 }).map((c) => String.fromCharCode(c));
    const ascii = fc.constantFrom('a', '1', ',', ' ', '\n', 'X');
    fc.assert(
      fc.property(fc.array(fc.oneof(hangul, hangul, ascii), { minLength: 4, maxLength: 80 }), (chars) => {
        const s = chars.join('');
        // One or two syllables can happen to be valid UTF-8 bytes too; real text has more.
        fc.pre((s.match(/[가-힣]/g) ?? []).length >= 4 && encodable('cp949')(s));
        expect(detectEncoding(iconv.encode(s, 'cp949'), true).encoding).toBe('cp949');
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.array(fc.oneof(kana, kana, ascii), { minLength: 4, maxLength: 80 }), (chars) => {
        const s = chars.join('');
        fc.pre((s.match(/[\u3041-\u30f6]/g) ?? []).length >= 4 && encodable('shift_jis')(s));
        expect(detectEncoding(iconv.encode(s, 'shift_jis'), true).encoding).toBe('shift_jis');
      }),
      { numRuns: 300 },
    );
  });
});

describe('detection does not guess on little evidence, and weighs half-width kana as Japanese', () => {
  it('stops on `A1,ｶﾊﾞﾝ` in Shift_JIS (it reads as two Hangul syllables too) instead of guessing CP949', async () => {
    const bytes = iconv.encode('sku,name\nA1,ｶﾊﾞﾝ\n', 'shift_jis');
    const err = await rejection(readBytes(bytes));
    expect(err.exitCode).toBe(2);
    expect(err.message).toContain('cannot detect the encoding');
    expect(err.message).toContain('byte 0xB6 at byte offset 12, line 2');
    expect(err.message).toContain('too little non-ASCII text (4 bytes)');
    expect(err.hint).toMatch(/--encoding .*shift_jis/);
    const given = await readBytes(bytes, { encoding: 'shift_jis' });
    expect(given.records[0].fields).toEqual({ sku: 'A1', name: 'ｶﾊﾞﾝ' });
  });

  it('detects Shift_JIS half-width kana given enough of them', async () => {
    const text = 'sku,name\nA1,ｶﾊﾞﾝ ｸﾛ\nA2,ﾃﾌﾞｸﾛ ｻｲﾌ\nA3,ﾎﾞｳｼ ﾚﾃﾞｨｰｽ\n';
    const r = await readBytes(iconv.encode(text, 'shift_jis'));
    expect(r.log.join('\n')).toMatch(/encoding shift_jis \(auto-detected/);
    expect(r.records.map((x) => x.fields.name)).toEqual(['ｶﾊﾞﾝ ｸﾛ', 'ﾃﾌﾞｸﾛ ｻｲﾌ', 'ﾎﾞｳｼ ﾚﾃﾞｨｰｽ']);
    // Korean text reads as half-width kana too (its lead bytes are 0xB0-0xC8): still Korean.
    expect(detectEncoding(iconv.encode('sku,name\nA1,가방 모자\n', 'cp949'), true).encoding).toBe('cp949');
  });
});

describe('UTF-32 and invalid UTF-8 sequences are said for what they are', () => {
  it('refuses UTF-32 by its byte order mark (LE checked before UTF-16LE), whatever --encoding says', async () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe, 0, 0]), iconv.encode('sku,name\n', 'utf-32le')]);
    const be = Buffer.concat([Buffer.from([0, 0, 0xfe, 0xff]), iconv.encode('sku,name\n', 'utf-32be')]);
    for (const [bytes, name] of [
      [le, 'UTF-32LE'],
      [be, 'UTF-32BE'],
    ] as const) {
      for (const encoding of ['auto', 'utf-16le'] as const) {
        const err = await rejection(readBytes(bytes, { encoding }));
        expect(err.exitCode).toBe(2);
        expect(err.message).toContain(`the file is ${name}`);
        expect(err.message).toContain('which genser does not read');
        expect(err.hint).toMatch(/Convert it to UTF-8/);
      }
    }
    expect(detectEncoding(le, true)).toMatchObject({ encoding: undefined, unsupported: 'UTF-32LE' });
  });

  it('reports a 6-byte (invalid) UTF-8 sequence as not valid UTF-8 at its byte offset, not as bad CP949', async () => {
    const six = Buffer.from([0xfc, 0x83, 0xbf, 0xbf, 0xbf, 0xbf]);
    // Small file: too little to guess from; it is not UTF-8, and says where.
    const small = await rejection(
      readBytes(Buffer.concat([Buffer.from('sku,name\nA1,'), six, Buffer.from('\n')])),
    );
    expect(small.message).toContain('the text is not valid utf-8 (byte 0xFC at byte offset 12, line 2)');
    expect(small.message).not.toContain('cp949');
    // UTF-8 given, or detected from a long valid start: the same byte offset, as UTF-8.
    const rows = Array.from({ length: 20000 }, (_, i) => `R-${i},이름 ${i}`).join('\n');
    const late = Buffer.concat([Buffer.from(`sku,name\n${rows}\nB1,`), six, Buffer.from('\n')]);
    const detected = await rejection(readBytes(late));
    expect(detected.message).toContain(
      `not valid utf-8 as detected: invalid byte 0xFC at byte offset ${late.length - 7}`,
    );
    const given = await rejection(readBytes(late, { encoding: 'utf-8' }));
    expect(given.message).toContain(`not valid utf-8: invalid byte 0xFC at byte offset ${late.length - 7}`);
    // Korean CP949 that breaks: both facts, not just "not cp949".
    const korean = Buffer.concat([
      iconv.encode('sku,name\nA1,가방 모자 신발\nA2,', 'cp949'),
      six,
      Buffer.from('\n'),
    ]);
    const guessed = await rejection(readBytes(korean));
    expect(guessed.message).toContain(
      'the text is not valid utf-8 (byte 0xB0 at byte offset 12) nor valid cp949, which it looked like: invalid byte 0xFC',
    );
  });
});
