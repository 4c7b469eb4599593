import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const bin = join(import.meta.dirname, '..', '..', 'bin', 'genser.js');

/** `genser --version` as it runs on a Node that reports `version`. */
function genserOn(version: string) {
  const code = `Object.defineProperty(process.versions, 'node', { value: ${JSON.stringify(version)} });
    process.argv = [process.execPath, ${JSON.stringify(bin)}, '--version'];
    await import(${JSON.stringify(pathToFileURL(bin).href)});`;
  return spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    encoding: 'utf8',
    timeout: 15_000,
  });
}

describe('the genser binary on an unsupported Node.js', () => {
  // 22.5 to 22.12 have node:sqlite only behind a flag; 21 and 20 before 20.18.1 are not supported.
  it.each(['18.20.4', '20.18.0', '21.7.3', '22.12.0', '23.3.0'])(
    'exits 2 with one line on Node %s',
    (version) => {
      const r = genserOn(version);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        `genser needs Node.js 20.18.1+ (20.x), 22.13+ (22.x) or 24+; this is Node.js ${version}\n`,
      );
    },
  );

  it('runs on a supported one', () => {
    const r = genserOn(process.versions.node);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
