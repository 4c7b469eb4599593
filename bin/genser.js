#!/usr/bin/env node
// Thin on purpose: all logic lives in dist/ (built by `npm run build`, run on install by `prepare`).
// The Node.js version is checked first: dist/ is imported only on a supported one.
import { unsupportedNode } from './node-version.js';

const unsupported = unsupportedNode(process.versions.node);
if (unsupported) {
  process.stderr.write(`${unsupported}\n`);
  process.exitCode = 2;
} else {
  // No top-level await: a Node too old for it still gets the line above.
  import('../dist/cli/main.js').then(({ run }) => run(process.argv));
}
