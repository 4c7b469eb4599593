import fc from 'fast-check';

/** Pieces that make CSV hard to cut: quotes, delimiters, line breaks, multi-byte characters. */
const PIECES = ['a', 'Z', '7', ' ', ',', '"', '""', '\n', '\r', '\r\n', 'é', '한', '😀', 'ｶ'];

const value = fc.array(fc.constantFrom(...PIECES), { maxLength: 6 }).map((p) => p.join(''));

/** A field as a CSV writer writes it: quoted (quotes doubled) when it must be, sometimes anyway. */
const field = fc
  .tuple(value, fc.boolean())
  .map(([v, force]) => (force || /[",\r\n]/.test(v) ? `"${v.replaceAll('"', '""')}"` : v));

export interface CsvShape {
  /** true: one kind of line end per file (LF or CRLF); false: LF, CRLF and CR mixed. */
  oneLineEnd?: boolean;
}

/**
 * Random CSV text with a canonical header (so rows map to products): well-formed quoting,
 * sometimes a BOM, blank lines, short and long rows.
 */
export function csvText(shape: CsvShape = { oneLineEnd: true }): fc.Arbitrary<string> {
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
      let text = bom ? '\uFEFF' : '';
      text += `sku,name,price,description${end(0)}`;
      rows.forEach(([sku, name, price, description], i) => {
        const blank = picks[(i + 7) % picks.length] % 9 === 0 ? end(i + 3) : '';
        text += `${blank}${sku}${i},${name},${price},${description}`;
        if (i < rows.length - 1 || lastEnd) text += end(i + 1);
      });
      return text;
    });
}
