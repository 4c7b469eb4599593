import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');

function genser(...args: string[]) {
  return spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
  });
}

describe('the genser binary', () => {
  it('prints the package version', () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    const r = genser('--version');
    expect(r.status).toBe(0);
    expect(r.stdout.trim()).toBe(version);
  });
  it('prints help with examples and exit codes on stdout', () => {
    const r = genser('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Examples:');
    expect(r.stdout).toContain('genser upload --sample --sandbox');
    expect(r.stdout).toMatch(/Exit codes: 0 ok/);
  });
  it('exits 2 on an unknown flag or command, with a hint on stderr', () => {
    const flag = genser('--bogus');
    expect(flag.status).toBe(2);
    expect(flag.stderr).toContain("unknown option '--bogus'");
    expect(flag.stderr).toContain("run 'genser --help'");
    const cmd = genser('frobnicate');
    expect(cmd.status).toBe(2);
    expect(cmd.stdout).toBe('');
  });
});
