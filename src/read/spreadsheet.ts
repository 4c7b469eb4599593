/**
 * Spreadsheets given as feeds. genser reads CSV, JSON and NDJSON; a workbook has to be exported
 * first, and the message says how, whether the name (`.xlsx`) or the bytes (ZIP, old Excel) tell.
 */

const BY_EXTENSION: Record<string, string> = {
  xlsx: 'an Excel workbook (.xlsx)',
  xlsm: 'an Excel workbook (.xlsm)',
  xlsb: 'an Excel binary workbook (.xlsb)',
  xls: 'an old Excel workbook (.xls)',
  ods: 'an OpenDocument spreadsheet (.ods)',
  numbers: 'a Numbers spreadsheet (.numbers)',
};

/** How to get a CSV out of a spreadsheet program. */
export const EXPORT_CSV =
  'Save it as CSV first: in Excel, File > Save As > "CSV UTF-8 (Comma delimited) (*.csv)"; in LibreOffice Calc, File > Save As > "Text CSV (.csv)" with character set UTF-8; in Google Sheets, File > Download > "Comma-separated values (.csv)". Then give genser the .csv file';

/** What kind of spreadsheet the file name says (looking through `.gz`), or undefined. */
export function spreadsheetByName(name: string): string | undefined {
  let base = name.toLowerCase();
  if (base.endsWith('.gz')) base = base.slice(0, -3);
  const dot = base.lastIndexOf('.');
  return dot === -1 ? undefined : BY_EXTENSION[base.slice(dot + 1)];
}

/** What kind of spreadsheet the first bytes look like: a ZIP (xlsx, ods) or an OLE file (xls). */
export function spreadsheetByBytes(head: Uint8Array): string | undefined {
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) {
    return 'a ZIP archive: an Excel .xlsx or OpenDocument .ods workbook, most likely';
  }
  if (head[0] === 0xd0 && head[1] === 0xcf && head[2] === 0x11 && head[3] === 0xe0) {
    return 'an old Excel .xls workbook (or another Office file)';
  }
  return undefined;
}

/** The one message for a spreadsheet given as a feed, without the export steps (a hint says them). */
export function spreadsheetMessage(file: string, kind: string): string {
  return `${file} is a spreadsheet (${kind}), not a CSV, JSON or NDJSON feed; nothing was read from it`;
}
