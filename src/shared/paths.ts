import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root: this file sits in src/shared/ (dist/shared/ when built). */
export const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const schemasDir = join(packageRoot, 'schemas');

let cachedVersion: string | undefined;

export function packageVersion(): string {
  if (cachedVersion === undefined) {
    const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
    cachedVersion = pkg.version;
  }
  return cachedVersion;
}
