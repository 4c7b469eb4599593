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

/**
 * Decoded text is handed to the CSV parser in pieces of about this many characters (more when
 * a row is longer). Small enough that a piece's rows are mapped and validated while its text
 * is still in the CPU's cache: 32 Ki took 0.70x the CPU of 256 Ki on short rows, 0.77x on
 * 1.6 KB rows; 16 Ki and 64 Ki did worse (BENCHMARKS.md, "Per-row cost").
 */
export const PARSE_CHUNK = 32 * 1024;
