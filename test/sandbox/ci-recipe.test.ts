import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hasBinary } from '../helpers/system-binary.js';

const root = join(import.meta.dirname, '..', '..');

/** The sh block that follows `heading` in a Markdown file. */
function recipe(file: string, heading: string): string {
  const text = readFileSync(join(root, file), 'utf8');
  const at = text.indexOf(heading);
  const start = text.indexOf('```sh\n', at) + '```sh\n'.length;
  return text.slice(start, text.indexOf('```\n', start));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const haveShell =
  hasBinary('bash', 'the documented CI recipe tests') && hasBinary('curl', 'the documented CI recipe tests');

describe.skipIf(!haveShell)('the documented CI recipe for the sandbox', () => {
  for (const [file, heading] of [['README.md', 'In a CI job']]) {
    it(`${file}: uploads, stops the sandbox itself (not only npx), and every step exits 0`, () => {
      expect(existsSync(join(root, 'dist', 'cli', 'main.js')), 'run `npm run build` first').toBe(true);
      // A job's directory with genser installed as a dependency, so `npx genser` is the real
      // npm wrapper around the real bin, as in a merchant's pipeline.
      const dir = mkdtempSync(join(tmpdir(), 'genser-ci-recipe-'));
      copyFileSync(join(root, 'fixtures', 'catalog.csv'), join(dir, 'catalog.csv'));
      writeFileSync(join(dir, 'package.json'), '{"name": "job", "version": "1.0.0", "private": true}');
      mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
      symlinkSync(join(root, 'bin', 'genser.js'), join(dir, 'node_modules', '.bin', 'genser'));
      const script = `set -e\ncd ${JSON.stringify(dir)}\n${recipe(file, heading)}\necho "recipe exit $?"`;
      const run = spawnSync('bash', ['-c', script], {
        encoding: 'utf8',
        timeout: 30_000,
        env: { ...process.env, NO_COLOR: '1' },
      });
      expect(run.stdout, run.stderr).toContain('recipe exit 0');
      expect(run.status).toBe(0);
      expect(run.stdout).toMatch(/"applied":25/);
      // The sandbox removed its pid file at exit; nothing is left listening.
      expect(existsSync(join(dir, 'sandbox.pid'))).toBe(false);
      const url = readFileSync(join(dir, 'sandbox.url'), 'utf8').trim();
      const probe = spawnSync(
        'curl',
        ['-s', '-o', '/dev/null', '-w', '%{http_code}', `${url}/_sandbox/health`],
        {
          encoding: 'utf8',
          timeout: 5_000,
        },
      );
      expect(probe.stdout).toBe('000');
    });
  }

  it('npx is a wrapper: killing its pid would orphan the sandbox, the pid file names the sandbox itself', () => {
    // The pid in the file is the sandbox's process, whatever started it.
    const dir = mkdtempSync(join(tmpdir(), 'genser-ci-recipe-'));
    const script = `cd ${JSON.stringify(dir)}
node ${JSON.stringify(join(root, 'bin', 'genser.js'))} sandbox --port 0 --quiet --pid-file s.pid > s.url 2> s.log &
for i in $(seq 100); do [ -s s.pid ] && break; sleep 0.1; done
echo "pid $(cat s.pid) child $!"
kill "$(cat s.pid)"; wait $!; echo "exit $?"`;
    const run = spawnSync('bash', ['-c', script], { encoding: 'utf8', timeout: 20_000 });
    const m = /pid (\d+) child (\d+)/.exec(run.stdout);
    expect(m?.[1]).toBe(m?.[2]);
    expect(run.stdout).toContain('exit 0');
    expect(alive(Number(m?.[1]))).toBe(false);
  });
});
