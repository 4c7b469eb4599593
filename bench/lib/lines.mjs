// Recorded request bodies: one JSON body per line. Read as bytes and cut at line feeds, so a
// recording larger than V8's longest string (~512 MiB) still loads; lines share the buffer.

import { readFileSync } from 'node:fs';

/** The non-empty lines of `file` as Buffers (views into one buffer), at most `max` of them. */
export function readLineBuffers(file, max = Number.POSITIVE_INFINITY) {
  const all = readFileSync(file);
  const out = [];
  let start = 0;
  while (start < all.length && out.length < max) {
    let end = all.indexOf(10, start);
    if (end === -1) end = all.length;
    if (end > start) out.push(all.subarray(start, end));
    start = end + 1;
  }
  return out;
}
