import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { junitXsdValid } from '../helpers/xmllint.js';

/**
 * docs/ci.md's GitHub Actions workflow and GitLab CI job: their `genser` commands run as
 * written through the built CLI (`node bin/genser.js`) on a feed with invalid rows, and the
 * files the CI keeps are the files those commands write (JUnit valid against the Jenkins XSD).
 */
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
const doc = readFileSync(join(root, 'docs', 'ci.md'), 'utf8');
const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);

function genserCommands(yaml: string): string[][] {
  return yaml
    .split('\n')
    .map((l) => l.replace(/^\s*(- )?(run: )?/, ''))
    .filter((l) => l.startsWith('genser '))
    .map((l) => l.trim().split(/\s+/));
}

/** A checkout with the documented feed path holding a feed with invalid rows. */
function checkout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'genser-ci-doc-'));
  mkdirSync(join(dir, 'feeds'));
  copyFileSync(join(root, 'fixtures', 'catalog-invalid.csv'), join(dir, 'feeds', 'catalog.csv'));
  return dir;
}

/** Runs one documented command as the CI would, in `cwd`, with the CI's environment. */
function run(command: string[], cwd: string, env: Record<string, string>) {
  expect(command[0]).toBe('genser');
  return new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [bin, ...command.slice(1)], {
      cwd,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const junitValid = (path: string) => junitXsdValid(readFileSync(path, 'utf8'), basename(path));

/** The indented list under `key:` in a YAML block (`path: |` lines or `- item` lines). */
function listAfter(yaml: string, key: RegExp): string[] {
  const lines = yaml.split('\n');
  const at = lines.findIndex((l) => key.test(l));
  expect(at).toBeGreaterThanOrEqual(0);
  const indent = /^\s*/.exec(lines[at])![0].length;
  const out: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (l.trim() === '' || /^\s*/.exec(l)![0].length <= indent) break;
    out.push(l.trim().replace(/^- /, ''));
  }
  return out;
}

describe('docs/ci.md', () => {
  it('has a GitHub Actions workflow and a GitLab CI job, each with one genser command', () => {
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toContain('runs-on: ubuntu-latest');
    expect(blocks[1]).toContain('validate-feed:');
    expect(genserCommands(blocks[0])).toHaveLength(1);
    expect(genserCommands(blocks[1])).toHaveLength(1);
  });

  it('the GitHub workflow: exit 1, annotations, a job summary, and the JUnit and HTML files the artifact keeps', async () => {
    const dir = checkout();
    const summary = join(dir, 'step-summary.md');
    const [command] = genserCommands(blocks[0]);
    const r = await run(command, dir, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    // Naming reporters replaces the human summary.
    expect(r.stderr).not.toMatch(/FAILED: /);
    expect(r.stderr).toMatch(/^::error file=feeds\/catalog\.csv,line=\d+,title=/m);
    expect(readFileSync(summary, 'utf8')).toMatch(/^#+ .*genser validate/m);
    // upload-artifact keeps exactly the files the reporters wrote.
    const kept = listAfter(blocks[0], /^\s*path: \|/);
    expect(kept).toEqual(['reports/genser.xml', 'report.html']);
    for (const file of kept) expect(existsSync(join(dir, file)), file).toBe(true);
    await junitValid(join(dir, 'reports', 'genser.xml'));
    expect(readFileSync(join(dir, 'reports', 'genser.xml'), 'utf8')).toMatch(
      /<testsuite name="feeds\/catalog\.csv" tests="\d+" failures="[1-9]/,
    );
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/^<!doctype html>/i);
    expect(blocks[0]).toMatch(/if: always\(\)\n\s+uses: actions\/upload-artifact/);
  });

  it('the GitLab job: exit 1, the summary in the job log, and the junit report and html path it keeps', async () => {
    const dir = checkout();
    const [command] = genserCommands(blocks[1]);
    const r = await run(command, dir, {});
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    // --reporter human keeps the terminal summary; no GitHub commands outside GitHub Actions.
    expect(r.stderr).toMatch(/FAILED: 10 row\(s\), 1 valid, 9 invalid/);
    expect(r.stderr).not.toMatch(/^::/m);
    const junit = /^\s*junit: (\S+)$/m.exec(blocks[1])![1];
    await junitValid(join(dir, junit));
    for (const file of listAfter(blocks[1], /^\s*paths:/))
      expect(existsSync(join(dir, file)), file).toBe(true);
    expect(blocks[1]).toContain('when: always');
  });
});
