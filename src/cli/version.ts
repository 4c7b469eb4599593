import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../shared/errors.js';
import { packageVersion, schemasDir } from '../shared/paths.js';
import { resolveBackend } from '../storage/drivers.js';

/**
 * `genser --version --json`: what a bug report needs: genser's version, the Node.js running it,
 * the SQLite backend this Node gets (or why there is none), and the version of the bundled event
 * schema collection (schemas/events/collection.json).
 */
export interface VersionInfo {
  version: string;
  node: string;
  sqlite: { backend: string } | { backend: null; problem: string };
  eventSchemas: string;
}

export function versionInfo(): VersionInfo {
  let sqlite: VersionInfo['sqlite'];
  try {
    sqlite = { backend: resolveBackend('auto').backend };
  } catch (err) {
    sqlite = { backend: null, problem: errorMessage(err) };
  }
  const collection = JSON.parse(readFileSync(join(schemasDir, 'events', 'collection.json'), 'utf8')) as {
    version: string;
  };
  return { version: packageVersion(), node: process.versions.node, sqlite, eventSchemas: collection.version };
}
