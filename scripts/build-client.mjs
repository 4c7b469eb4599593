// Builds the browser client (src/client/) into dist/client/, after `tsc -p tsconfig.build.json`:
//   genser.js   the classic <script> (IIFE, minified) that defines window.genser
//   index.js    the ES module behind `import { createClient } from 'genser/client'`, with .d.ts
//   demo.html   the integration example of docs/client.md, served by the sandbox at /_sandbox/demo
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'src', 'client');
const out = join(root, 'dist', 'client');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
mkdirSync(out, { recursive: true });

const common = {
  bundle: true,
  target: 'es2017',
  platform: 'browser',
  legalComments: 'none',
  logLevel: 'warning',
};
await build({
  ...common,
  entryPoints: [join(src, 'global.ts')],
  outfile: join(out, 'genser.js'),
  format: 'iife',
  minify: true,
  define: { VERSION: JSON.stringify(version) },
  banner: { js: `/* genser client ${version} (MIT) */` },
});
await build({
  ...common,
  entryPoints: [join(src, 'index.ts')],
  outfile: join(out, 'index.js'),
  format: 'esm',
});

// Declarations, and the type check against the DOM's types (not Node's).
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const checked = spawnSync(process.execPath, [tsc, '-p', join(src, 'tsconfig.json')], { stdio: 'inherit' });
if (checked.status !== 0) process.exit(checked.status ?? 1);

copyFileSync(join(src, 'demo.html'), join(out, 'demo.html'));
