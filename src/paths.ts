import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: src/ and dist/ both sit one level below it. */
export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

export const schemasDir = join(packageRoot, 'schemas');

let cachedVersion: string | undefined;

export function packageVersion(): string {
  if (cachedVersion === undefined) {
    const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
    cachedVersion = pkg.version;
  }
  return cachedVersion;
}
