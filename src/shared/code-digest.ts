import { createHash } from 'node:crypto';
import { type Dirent, existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot, packageVersion } from './paths.js';

/** The digest, made once per process (each feed worker makes its own). */
let cached: string | undefined;

/**
 * A digest of the code that turns a record into a payload: every module of this genser (dist/
 * when built, src/ when run from source), its bundled schemas and presets, its version, and the
 * Node.js data that dates depend on (ICU, time zones). The nightly state's source keys include
 * it (docs/nightly.md, "Unchanged rows"), so a new genser (even an unreleased build with the
 * same version number) or a new parsing or validation library never takes a row for unchanged
 * because an older one mapped it.
 */
export function codeDigest(): string {
  if (cached !== undefined) return cached;
  const h = createHash('sha256');
  const { node, v8, icu, tz, unicode } = process.versions as Record<string, string | undefined>;
  h.update(
    JSON.stringify({ genser: packageVersion(), node, v8, icu, tz, unicode, libraries: libraryVersions() }),
  );
  // This file sits in src/shared/ (dist/shared/ when built): its grandparent is the code's root.
  const codeRoot = dirname(dirname(fileURLToPath(import.meta.url)));
  for (const dir of [codeRoot, join(packageRoot, 'schemas'), join(packageRoot, 'presets')]) {
    for (const file of filesUnder(dir)) {
      h.update(`\u0000${relative(packageRoot, file)}\u0000`);
      h.update(readFileSync(file));
    }
  }
  cached = h.digest('base64url');
  return cached;
}

/**
 * The installed versions of the libraries a payload depends on (parsing, decoding, validation):
 * their `^` ranges let a reinstall bring a newer one without changing genser's own files.
 */
const PAYLOAD_LIBRARIES = ['ajv', 'ajv-formats', 'iconv-lite', 'papaparse'];

export function libraryVersions(): Record<string, string> {
  const require = createRequire(import.meta.url);
  const out: Record<string, string> = {};
  for (const name of PAYLOAD_LIBRARIES) {
    try {
      // From the entry point up to the package's own package.json (not every package exports it).
      let dir = dirname(require.resolve(name));
      while (!existsSync(join(dir, 'package.json')) || basename(dir) !== name) {
        const up = dirname(dir);
        if (up === dir) break;
        dir = up;
      }
      out[name] = (
        JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }
      ).version;
    } catch {
      out[name] = 'unknown';
    }
  }
  return out;
}

/** Files under `dir`, depth first, in name order (the same digest on every machine); none when absent. */
function filesUnder(dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const out: string[] = [];
  for (const e of entries) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(path));
    else if (e.isFile() && !e.name.endsWith('.map')) out.push(path);
  }
  return out;
}
