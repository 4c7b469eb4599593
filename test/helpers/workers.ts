import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/**
 * A worker module bundled from the sources under test (esbuild, a few hundred milliseconds), so
 * that workers run the same code as the thread that compares against them: a stale dist/ can
 * neither pass nor fail a test. The bundle sits two levels under the repository, as dist/feed/
 * does, so that its paths to schemas/ and presets/ are the build's; packages stay external.
 */
const root = join(import.meta.dirname, '..', '..');
const built = new Map<string, Promise<URL>>();

export function workerFromSource(entry: 'feed/worker.ts' | 'sandbox/ingest-worker.ts'): Promise<URL> {
  let url = built.get(entry);
  if (!url) {
    url = bundle(entry);
    built.set(entry, url);
  }
  return url;
}

async function bundle(entry: string): Promise<URL> {
  const dir = join(root, 'node_modules', '.genser-test-workers');
  mkdirSync(dir, { recursive: true });
  // One file per test process: vitest's workers build side by side.
  const outfile = join(dir, `${entry.replace(/\W/g, '-')}-${process.pid}.mjs`);
  await build({
    entryPoints: [join(root, 'src', entry)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    packages: 'external',
    logLevel: 'error',
  });
  return pathToFileURL(outfile);
}
