import type { EncodingName } from '../shared/types.js';

const MAGIC: Array<[number[], string]> = [
  [[0x50, 0x4b, 0x03, 0x04], 'a ZIP archive (an .xlsx or .ods spreadsheet is one)'],
  [[0xd0, 0xcf, 0x11, 0xe0], 'an old Excel .xls (or other Office) file'],
  [[0x25, 0x50, 0x44, 0x46], 'a PDF document'],
  [[0x89, 0x50, 0x4e, 0x47], 'a PNG image'],
  [[0xff, 0xd8, 0xff], 'a JPEG image'],
  [[0x42, 0x5a, 0x68], 'a bzip2 archive'],
  [[0xfd, 0x37, 0x7a, 0x58, 0x5a], 'an xz archive'],
  [[0x28, 0xb5, 0x2f, 0xfd], 'a zstd archive'],
  [[0x53, 0x51, 0x4c, 0x69, 0x74, 0x65, 0x20, 0x66], 'an SQLite database'],
];

/**
 * What the first bytes look like when they are not text (undefined: text). UTF-16 text has zero
 * bytes by nature, so zero bytes count only when the encoding is not (or not detected as) UTF-16.
 * A few NUL bytes in a text export are refused row by row (src/read/nul.ts); a file of which
 * more than 5% are NUL or other control bytes is not text.
 */
export function binaryKind(head: Uint8Array, encoding: EncodingName, utf16: boolean): string | undefined {
  for (const [magic, kind] of MAGIC) {
    if (magic.every((byte, i) => head[i] === byte)) return kind;
  }
  if (utf16 || encoding === 'utf-16le' || encoding === 'utf-16be') return undefined;
  const n = Math.min(head.length, 8192);
  let nul = 0;
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = head[i];
    if (b === 0) nul++;
    // Tab, LF, FF, CR and ESC occur in text; other C0 controls hardly ever do.
    else if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0c && b !== 0x0d && b !== 0x1b) control++;
  }
  if (n === 0 || nul + control <= n * 0.05) return undefined;
  return nul > 0
    ? 'a binary file (it holds many NUL bytes, 0x00)'
    : 'a binary file (it holds many control bytes)';
}
