import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Real uploads keep state under ~/.local/state/genser: the tests get a home of their own, so a
// run never finds (and skips products by) the state another test or an earlier run left.
process.env.HOME = mkdtempSync(join(tmpdir(), 'genser-test-home-'));
delete process.env.XDG_STATE_HOME;
delete process.env.GENSER_STATE_DIR;
