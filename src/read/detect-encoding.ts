import type { EncodingName } from '../shared/types.js';
import { firstInvalidUtf8 } from './utf8.js';

export type ConcreteEncoding = Exclude<EncodingName, 'auto'>;

export type Detection =
  | { encoding: ConcreteEncoding; reason: string }
  | {
      encoding: undefined;
      invalidAt: number;
      reason: string;
      /** A byte order mark of an encoding genser does not read (UTF-32). */
      unsupported?: string;
    };

/**
 * Fewer non-ASCII bytes than this cannot tell CP949 from Shift_JIS: `ｶﾊﾞﾝ` (four half-width
 * kana) reads as two Hangul syllables just as well. Four Hangul syllables or kana are eight bytes.
 */
export const MIN_EVIDENCE_BYTES = 8;

/** The byte order mark of UTF-32, if `sample` starts with one (LE's `FF FE 00 00` starts like UTF-16LE's). */
export function utf32Bom(sample: Uint8Array): string | undefined {
  if (sample[0] === 0xff && sample[1] === 0xfe && sample[2] === 0 && sample[3] === 0) return 'UTF-32LE';
  if (sample[0] === 0 && sample[1] === 0 && sample[2] === 0xfe && sample[3] === 0xff) return 'UTF-32BE';
  return undefined;
}

/**
 * Decides the encoding of a file from its first bytes (pure; docs/reading.md explains the rules):
 * a byte order mark; else UTF-16 recognised by its zero bytes; else UTF-8 when the sample is
 * valid UTF-8; else CP949 or Shift_JIS when the byte pairs clearly read as Korean or Japanese.
 * `final`: the sample is the whole input (a multi-byte sequence cut at its end is then an error).
 */
export function detectEncoding(sample: Uint8Array, final: boolean): Detection {
  if (sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf) {
    return { encoding: 'utf-8', reason: 'UTF-8 byte order mark' };
  }
  const utf32 = utf32Bom(sample);
  if (utf32) {
    return { encoding: undefined, invalidAt: 0, reason: `${utf32} byte order mark`, unsupported: utf32 };
  }
  if (sample[0] === 0xff && sample[1] === 0xfe)
    return { encoding: 'utf-16le', reason: 'UTF-16LE byte order mark' };
  if (sample[0] === 0xfe && sample[1] === 0xff)
    return { encoding: 'utf-16be', reason: 'UTF-16BE byte order mark' };
  const utf16 = utf16WithoutBom(sample, final);
  if (utf16) return { encoding: utf16, reason: 'zero bytes of UTF-16 text without a byte order mark' };
  const invalidAt = firstInvalidUtf8(sample, 0, final);
  if (invalidAt === -1) return { encoding: 'utf-8', reason: 'valid UTF-8' };

  const ko = koreanScore(sample);
  const ja = japaneseScore(sample);
  // Bytes of the non-ASCII characters (a Shift_JIS trail byte may be ASCII).
  const evidence = Math.max(ko.pairs * 2 + ko.bad, ja.pairs * 2 + ja.single + ja.bad);
  if (evidence < MIN_EVIDENCE_BYTES) {
    return {
      encoding: undefined,
      invalidAt,
      reason: `too little non-ASCII text (${evidence} bytes) to tell CP949 (Korean) from Shift_JIS (Japanese)`,
    };
  }
  // Half-width kana count for Japanese, but Korean text also reads as them (its lead bytes are
  // in 0xB0-0xC8): Korean must beat Japanese without them, and not lose clearly with them.
  if (
    ko.ratio >= 0.5 &&
    ko.bad <= ko.pairs * 0.01 &&
    ko.ratio > ja.withoutKana + 0.2 &&
    ko.ratio > ja.ratio - 0.1
  ) {
    return {
      encoding: 'cp949',
      reason: `not UTF-8; ${Math.round(ko.ratio * 100)}% of its characters read as Hangul in CP949`,
    };
  }
  if (ja.ratio >= 0.5 && ja.bad <= (ja.pairs + ja.single) * 0.01 && ja.ratio > ko.ratio + 0.2) {
    return {
      encoding: 'shift_jis',
      reason: `not UTF-8; ${Math.round(ja.ratio * 100)}% of its characters read as kana or kanji in Shift_JIS`,
    };
  }
  return {
    encoding: undefined,
    invalidAt,
    reason: 'it does not read clearly as CP949 (Korean) or Shift_JIS (Japanese)',
  };
}

/**
 * ASCII in UTF-16 is an ASCII byte paired with a zero: (ascii, 0) in LE, (0, ascii) in BE.
 * Counting such pairs (not zero bytes alone) keeps Hangul like U+AC00 `가` (bytes AC 00) from
 * voting; one order must clearly win, which random binary data does not do. A UTF-8 export with a
 * few NUL bytes (each row holding one is refused, src/read/nul.ts) has such pairs too: UTF-16 also
 * needs the pairs to be a good share of the text (every delimiter, digit and line end of UTF-16
 * CSV is one), or bytes that are not UTF-8 (mostly Hangul or kana UTF-16 text has few ASCII pairs,
 * and its other bytes are never valid UTF-8).
 */
function utf16WithoutBom(sample: Uint8Array, final: boolean): ConcreteEncoding | undefined {
  const pairs = Math.floor(Math.min(sample.length, 4096) / 2);
  let le = 0;
  let be = 0;
  for (let i = 0; i < pairs; i++) {
    const a = sample[2 * i];
    const b = sample[2 * i + 1];
    if (b === 0 && a >= 0x09 && a <= 0x7e) le++;
    else if (a === 0 && b >= 0x09 && b <= 0x7e) be++;
  }
  const order = le >= 2 && le >= be * 4 ? 'utf-16le' : be >= 2 && be >= le * 4 ? 'utf-16be' : undefined;
  if (order === undefined) return undefined;
  const ascii = Math.max(le, be);
  // Many pairs all in one order: the NULs of a broken UTF-8 export fall at odd and even offsets alike.
  if (ascii >= pairs * UTF16_ASCII_SHARE || (ascii >= UTF16_ONE_ORDER && Math.min(le, be) === 0))
    return order;
  return firstInvalidUtf8(sample, 0, final) === -1 ? undefined : order;
}

/** The share of (ASCII, zero) pairs that says UTF-16 even when the bytes are also valid UTF-8. */
const UTF16_ASCII_SHARE = 0.1;
/** As many such pairs, none in the other order, say it too (a chance of 1 in 2^15 for NULs at random offsets). */
const UTF16_ONE_ORDER = 16;

interface Score {
  /** Well-formed double-byte characters. */
  pairs: number;
  /** Bytes that cannot be read in this encoding. */
  bad: number;
  /** Share of the non-ASCII characters that are typical of the language. */
  ratio: number;
}

/** CP949: the 2,350 common Hangul syllables of KS X 1001 are leads 0xB0-0xC8 with trails 0xA1-0xFE. */
function koreanScore(bytes: Uint8Array): Score {
  let pairs = 0;
  let bad = 0;
  let typical = 0;
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    if (b === 0x80 || b === 0xff || i + 1 >= n) {
      if (i + 1 < n) bad++;
      i++;
      continue;
    }
    const t = bytes[i + 1];
    if ((t >= 0x41 && t <= 0x5a) || (t >= 0x61 && t <= 0x7a) || (t >= 0x81 && t <= 0xfe)) {
      pairs++;
      // Common Hangul and the KS X 1001 symbol rows before them (hanja rows would overlap kanji).
      if (b >= 0xa1 && b <= 0xc8 && t >= 0xa1) typical++;
      i += 2;
    } else {
      bad++;
      i++;
    }
  }
  return { pairs, bad, ratio: pairs + bad === 0 ? 0 : typical / (pairs + bad) };
}

interface JapaneseScore extends Score {
  /** Half-width katakana (single bytes). */
  single: number;
  /** The ratio counting half-width katakana as not typical. */
  withoutKana: number;
}

/** Shift_JIS: leads 0x81-0x9F and 0xE0-0xFC; single bytes 0xA1-0xDF are half-width katakana. */
function japaneseScore(bytes: Uint8Array): JapaneseScore {
  let pairs = 0;
  let bad = 0;
  let single = 0;
  let typical = 0;
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i];
    if (b < 0x80) {
      i++;
      continue;
    }
    if (b >= 0xa1 && b <= 0xdf) {
      single++;
      i++;
      continue;
    }
    if (!((b >= 0x81 && b <= 0x9f) || (b >= 0xe0 && b <= 0xfc)) || i + 1 >= n) {
      if (i + 1 < n) bad++;
      i++;
      continue;
    }
    const t = bytes[i + 1];
    if ((t >= 0x40 && t <= 0x7e) || (t >= 0x80 && t <= 0xfc)) {
      pairs++;
      // Punctuation (0x81), kana (0x82, 0x83) and the JIS level 1 and 2 kanji rows.
      if (b <= 0x83 || (b >= 0x88 && b <= 0x9f) || (b >= 0xe0 && b <= 0xea)) typical++;
      i += 2;
    } else {
      bad++;
      i++;
    }
  }
  const total = pairs + bad + single;
  return {
    pairs,
    bad,
    single,
    ratio: total === 0 ? 0 : (typical + single) / total,
    withoutKana: total === 0 ? 0 : typical / total,
  };
}
