import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Every test, and every genser it spawns, makes its temporary files under one directory of the
// run's own (TMPDIR, inherited by the test workers and their children), removed when the run
// ends: a developer's /tmp does not gain a few hundred directories a run.
export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'genser-tests-'));
  // Others may pass through (not list it): the PostgreSQL tests run the server as nobody.
  chmodSync(root, 0o711);
  process.env.TMPDIR = root;
  return () => rmSync(root, { recursive: true, force: true, maxRetries: 3 });
}
