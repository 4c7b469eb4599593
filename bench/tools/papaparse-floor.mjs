#!/usr/bin/env node
// The parse-only floor: papaparse alone over the same file, fed decoded text (docs/architecture.md section 1:
// decode before parsing), counting rows. Rows stay arrays (`header: false`): papaparse's
// header mode makes objects and checks dynamic typing per field, which would raise the floor
// and flatter genser. Nothing is mapped or validated, so `genser validate` time divided by
// this time is what genser adds on top of parsing.
//
//   node bench/tools/papaparse-floor.mjs FILE   ->  {"rows": N, "bytes": B, "ms": T} on stdout

import { createReadStream, statSync } from 'node:fs';
import Papa from 'papaparse';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: papaparse-floor.mjs FILE\n');
  process.exit(2);
}
const started = performance.now();
let rows = -1; // the header line
await new Promise((resolve, reject) => {
  // encoding 'utf8': Node's StringDecoder joins multi-byte characters split across chunks.
  Papa.parse(createReadStream(file, { encoding: 'utf8' }), {
    header: false,
    skipEmptyLines: true,
    chunk: (result) => {
      rows += result.data.length;
    },
    complete: resolve,
    error: reject,
  });
});
const ms = performance.now() - started;
process.stdout.write(`${JSON.stringify({ rows, bytes: statSync(file).size, ms: Math.round(ms) })}\n`);
