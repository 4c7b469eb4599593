import Papa from 'papaparse';

export type Newline = '\r\n' | '\n' | '\r';

/** The line break of a CSV text, from its first line break. */
export function guessNewline(sample: string): Newline {
  const lf = sample.indexOf('\n');
  const cr = sample.indexOf('\r');
  if (lf === -1) return cr === -1 ? '\n' : '\r';
  if (cr !== -1 && cr === lf - 1) return '\r\n';
  if (cr !== -1 && cr < lf) return '\r';
  return '\n';
}

const CANDIDATES = [',', ';', '\t', '|'];
const SNIFF_ROWS = 20;

/**
 * The delimiter among `,` `;` tab `|` that splits the first rows (quote-aware, via papaparse)
 * into the same number of fields as the header, most consistently, then into the most fields.
 */
export function sniffDelimiter(sample: string, newline: Newline, final: boolean): string {
  // A cut-off last line would count as a ragged row.
  const end = final ? sample.length : sample.lastIndexOf(newline);
  const text = end > 0 ? sample.slice(0, end) : sample;
  let best = ',';
  let bestScore = 0;
  for (const delimiter of CANDIDATES) {
    const rows = (
      new Papa.Parser({ delimiter, newline, preview: SNIFF_ROWS }).parse(text, 0, false) as {
        data: string[][];
      }
    ).data.filter((row) => !(row.length === 1 && row[0].trim() === ''));
    if (rows.length === 0) continue;
    const width = rows[0].length;
    if (width < 2) continue;
    const same = rows.filter((row) => row.length === width).length / rows.length;
    const score = same * 1000 + Math.min(width, 999);
    if (score > bestScore) {
      bestScore = score;
      best = delimiter;
    }
  }
  return best;
}

/** Excel's `sep=;` first line names the delimiter; returns it and the length of that line. */
export function excelSepLine(text: string): { delimiter: string; length: number } | undefined {
  if (!text.startsWith('sep=') || text.length < 5) return undefined;
  const after = text.charCodeAt(5);
  if (after !== 10 && after !== 13 && text.length > 5) return undefined;
  let length = 5;
  if (text[length] === '\r') length++;
  if (text[length] === '\n') length++;
  return { delimiter: text[4], length };
}
