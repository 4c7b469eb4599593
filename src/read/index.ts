import type { Logger } from '../shared/logger.js';
import type { InputType, ReadItem } from '../shared/types.js';
import { readCsv } from './csv.js';
import { decodeChunks } from './decode.js';
import { readJson } from './json.js';
import { readNdjson } from './ndjson.js';
import { NulWatch } from './nul.js';
import { planRead, type ReadOptions, type ReadPlan } from './plan.js';

export { FeedUnchanged, feedAuthHeader, isUrl, type RemoteSettings, type Validators } from './feed-url.js';
export { inputTypeFromName } from './input-type.js';
export { NUL, NulWatch } from './nul.js';
export {
  delimiterOption,
  type ReadOptions,
  type ReadPlan,
  STDIN_NAME,
  sourceName,
  streamedSource,
} from './plan.js';

/**
 * Reads one feed as records in order, with issues where problems occur (docs/reading.md).
 * source: a file path, or '-' for stdin (then options.inputType is required).
 * Fatal problems (missing file, unknown type, undecodable bytes) throw UsageError.
 */
export async function* readFeed(
  source: string,
  options: ReadOptions,
  log: Logger,
  stdin?: NodeJS.ReadableStream,
): AsyncGenerator<ReadItem> {
  const plan = await planRead(source, options, log, stdin);
  if (!('bytes' in plan)) {
    yield plan;
    return;
  }
  yield* readPlanned(plan, log);
}

/** The records of a planned input, read in one piece; closes it at the end or when left early. */
export async function* readPlanned(plan: ReadPlan, log: Logger): AsyncGenerator<ReadItem> {
  try {
    const watch = new NulWatch(plan.encoding);
    const texts = decodeChunks(watch.tap(plan.bytes), plan.encoding, plan.notUtf8);
    const { file, autoEncoding, delimiter } = plan;
    yield* readText(plan.type, texts, { file, autoEncoding, delimiter, log, nulFree: watch.free });
  } finally {
    await plan.close();
  }
}

export interface TextOptions {
  file: string;
  autoEncoding: boolean;
  delimiter?: string;
  log: Logger;
  /** Characters per parse (the feed's workers parse a byte range in smaller pieces). */
  parseChunk?: number;
  /** True while the bytes read so far hold no NUL (src/read/nul.ts, `NulWatch`). */
  nulFree?: () => boolean;
}

/** Decoded text to records, by input type. */
export function readText(
  type: InputType,
  texts: AsyncIterable<string>,
  o: TextOptions,
): AsyncIterable<ReadItem> {
  if (type === 'csv') return readCsv(texts, o);
  if (type === 'json') return readJson(texts, o);
  return readNdjson(texts, o);
}
