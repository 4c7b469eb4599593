// Which Node.js genser runs on, checked by bin/genser.js before it imports dist/ (plain JS that
// any Node can parse, so an old one gets this line, not a stack trace). Keep in step with
// package.json "engines": 20.18.1+ on better-sqlite3, 22.13+ and 23.4+ on the built-in node:sqlite.
export const SUPPORTED = '20.18.1+ (20.x), 22.13+ (22.x) or 24+';

/** Undefined when `version` (process.versions.node) is supported, else the one line to print. */
export function unsupportedNode(version) {
  const [major, minor, patch] = String(version).split('.').map(Number);
  const ok =
    (major === 20 && (minor > 18 || (minor === 18 && patch >= 1))) ||
    (major === 22 && minor >= 13) ||
    (major === 23 && minor >= 4) ||
    major >= 24;
  return ok ? undefined : `genser needs Node.js ${SUPPORTED}; this is Node.js ${version}`;
}
