import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseReporters } from '../../src/report/reporters.js';

/**
 * docs/ci.md's workflow and job use reporter flags that parse, and keep the files those
 * reporters write. (Running the documented commands waits for the CLI's --reporter option.)
 */
const doc = readFileSync('docs/ci.md', 'utf8');
const blocks = [...doc.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]);

function genserCommands(yaml: string): string[][] {
  return yaml
    .split('\n')
    .map((l) => l.replace(/^\s*(- )?(run: )?/, ''))
    .filter((l) => l.startsWith('genser '))
    .map((l) => l.split(/\s+/));
}

function reporters(args: string[], env: Record<string, string> = {}) {
  const values = args.flatMap((a, i) => (a === '--reporter' ? [args[i + 1]] : []));
  return parseReporters(values, env);
}

describe('docs/ci.md', () => {
  it('has a GitHub Actions workflow and a GitLab CI job', () => {
    expect(blocks).toHaveLength(2);
    expect(blocks[0]).toContain('runs-on: ubuntu-latest');
    expect(blocks[1]).toContain('validate-feed:');
  });

  it('the GitHub workflow: junit, github and html reporters; the artifact keeps both files', () => {
    const [command] = genserCommands(blocks[0]);
    expect(command.slice(0, 2)).toEqual(['genser', 'validate']);
    const named = reporters(command, { GITHUB_ACTIONS: 'true' });
    expect(named).toEqual([
      { name: 'junit', file: 'reports/genser.xml' },
      { name: 'github' },
      { name: 'html', file: 'report.html' },
    ]);
    const paths = /path: \|\n((?:\s+\S+\n)+)/
      .exec(blocks[0])![1]
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    expect(paths).toEqual(['reports/genser.xml', 'report.html']);
    expect(blocks[0]).toMatch(/if: always\(\)\n\s+uses: actions\/upload-artifact/);
  });

  it('the GitLab job: the junit artifact is the file the junit reporter writes, kept also on failure', () => {
    const [command] = genserCommands(blocks[1]);
    const named = reporters(command);
    const junit = named.find((r) => r.name === 'junit')!;
    expect(blocks[1]).toContain(`junit: ${junit.file}`);
    expect(blocks[1]).toContain(`- ${named.find((r) => r.name === 'html')!.file}`);
    expect(blocks[1]).toContain('when: always');
    expect(named.map((r) => r.name)).toContain('human');
  });
});
