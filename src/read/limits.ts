/** Size limits of the readers: memory stays bounded whatever the input holds. */

/** A single CSV field (or JSON element) longer than this is reported, not kept. */
export const FIELD_LIMIT = 1024 * 1024;

/**
 * An unfinished CSV row, NDJSON line or JSON element may grow to this many characters while
 * the reader waits for its end; past it the reader reports and skips it.
 */
export const PENDING_LIMIT = 16 * 1024 * 1024;

/** Bytes looked at to sniff gzip, binary junk and the encoding. */
export const HEAD_BYTES = 64 * 1024;

/** Decoded text is handed to the parsers in pieces of at least this many characters. */
export const PARSE_CHUNK = 256 * 1024;
