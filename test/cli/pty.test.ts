import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasBinary } from '../helpers/system-binary.js';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');

/**
 * `script` runs the command on a pseudo-terminal of 0 columns and 0 rows when it is not itself on
 * a terminal, as some job runners do: a spinner there once redrew for ever.
 */
// util-linux's script (its -q -e -c; BSD's differs) makes the pseudo-terminal.
const haveScript = hasBinary('script', 'the 0-column terminal tests', (v) => v.includes('util-linux'));

describe.skipIf(!haveScript)('on a terminal that reports 0 columns', () => {
  for (const args of [
    ['validate', 'fixtures/catalog.csv'],
    ['convert', 'fixtures/catalog.csv', '-o', '/dev/null'],
  ]) {
    it(`genser ${args[0]} finishes with plain output`, () => {
      const command = `node ${bin} ${args.join(' ')}`;
      const run = spawnSync('script', ['-q', '-e', '-c', command, '/dev/null'], {
        cwd: root,
        encoding: 'utf8',
        timeout: 15_000,
        env: { PATH: process.env.PATH, HOME: process.env.HOME, TERM: 'xterm' },
      });
      expect(run.error, 'genser did not finish on a 0x0 terminal').toBeUndefined();
      expect(run.status).toBe(0);
      expect(run.stdout.length).toBeLessThan(5_000);
      expect(run.stdout).not.toContain('\u001b[1A');
      expect(run.stdout).toMatch(/25 row\(s\), 25 valid|wrote 25/);
    });
  }
});
