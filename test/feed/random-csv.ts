import fc from 'fast-check';
import { gtinCheckDigit } from '../../src/schema/checks.js';

/** Pieces that make CSV hard to cut: quotes, delimiters, line breaks (multi-byte characters apart). */
const ASCII_PIECES = ['a', 'Z', '7', ' ', ',', '"', '""', '\n', '\r', '\r\n'];

/** Multi-byte characters of UTF-8 (2, 3 and 4 bytes). */
export const UTF8_CHARS = ['é', '한', '😀', 'ｶ'];
/** CP949 characters: KS X 1001 Hangul and Kanji, a UHC extension (trail byte 0x63 `c`), katakana. */
export const CP949_CHARS = ['한', '글', '똠', '日', 'ソ'];
/** Shift_JIS characters whose trail bytes are ASCII (`|` 0x7C, `\` 0x5C, `[` 0x5B), kanji, a half-width kana. */
export const SHIFT_JIS_CHARS = ['ポ', '表', 'ソ', 'ー', '日', 'ｶ'];

/** A field as a CSV writer writes it: quoted (quotes doubled) when it must be, sometimes anyway. */
function fieldOf(chars: string[]): fc.Arbitrary<string> {
  const value = fc.array(fc.constantFrom(...ASCII_PIECES, ...chars), { maxLength: 6 }).map((p) => p.join(''));
  return fc
    .tuple(value, fc.boolean())
    .map(([v, force]) => (force || /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v));
}

export interface CsvShape {
  /** true: one kind of line end per file (LF or CRLF); false: LF, CRLF and CR mixed. */
  oneLineEnd?: boolean;
  /** The multi-byte characters values hold (UTF8_CHARS by default). */
  chars?: string[];
  /** false: never a byte order mark (encodings without one). */
  bom?: boolean;
  /** true: `gtin` and `mpn` columns too, each SKU's own (gtinFor), so rows can be valid products. */
  identifiers?: boolean;
}

/** A valid GTIN-13 of its own for each SKU of up to four characters (their codes, three digits each). */
export function gtinFor(sku: string): string {
  const body = [...sku.slice(0, 4)]
    .map((c) => String(c.charCodeAt(0) % 1000).padStart(3, '0'))
    .join('')
    .padStart(12, '0');
  return body + gtinCheckDigit(body);
}

/**
 * Random CSV text with a canonical header (so rows map to products): well-formed quoting,
 * sometimes a BOM, blank lines, short and long rows.
 */
export function csvText(shape: CsvShape = { oneLineEnd: true }): fc.Arbitrary<string> {
  const field = fieldOf(shape.chars ?? UTF8_CHARS);
  const ends = shape.oneLineEnd
    ? fc.constantFrom('\n', '\r\n').map((e) => [e])
    : fc.constant(['\n', '\r\n', '\r']);
  return fc
    .tuple(
      ends,
      fc.boolean(),
      fc.array(
        fc.tuple(
          fc.constantFrom('P1', 'P2', 'P3', 'Q', ''),
          field,
          fc.integer({ min: 0, max: 99999 }),
          field,
        ),
        { maxLength: 25 },
      ),
      fc.array(fc.nat(), { minLength: 30, maxLength: 30 }),
      fc.boolean(),
    )
    .map(([endChoices, bom, rows, picks, lastEnd]) => {
      const end = (i: number) => endChoices[picks[i % picks.length] % endChoices.length];
      let text = bom && shape.bom !== false ? '\uFEFF' : '';
      text += `sku,name,price,description${shape.identifiers ? ',gtin,mpn' : ''}${end(0)}`;
      rows.forEach(([sku, name, price, description], i) => {
        const blank = picks[(i + 7) % picks.length] % 9 === 0 ? end(i + 3) : '';
        const ids = shape.identifiers ? `,${gtinFor(`${sku}${i}`)},${sku}${i}` : '';
        text += `${blank}${sku}${i},${name},${price},${description}${ids}`;
        if (i < rows.length - 1 || lastEnd) text += end(i + 1);
      });
      return text;
    });
}
