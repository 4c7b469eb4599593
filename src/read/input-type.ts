import type { InputType } from '../shared/types.js';

const BY_EXTENSION: Record<string, InputType> = {
  csv: 'csv',
  tsv: 'csv',
  txt: 'csv',
  json: 'json',
  jsonld: 'json',
  ndjson: 'ndjson',
  jsonl: 'ndjson',
};

/**
 * The input type a file name says, looking through a `.gz` suffix (`feed.csv.gz` is csv); of a
 * URL, its path says it (not its query).
 */
export function inputTypeFromName(name: string): InputType | undefined {
  let base = (/^https?:\/\//i.test(name) ? pathOf(name) : name).toLowerCase();
  if (base.endsWith('.gz')) base = base.slice(0, -3);
  const slash = Math.max(base.lastIndexOf('/'), base.lastIndexOf('\\'));
  const dot = base.lastIndexOf('.');
  if (dot <= slash + 1) return undefined;
  return BY_EXTENSION[base.slice(dot + 1)];
}

function pathOf(url: string): string {
  try {
    return new URL(url).pathname;
  } catch {
    return url;
  }
}
