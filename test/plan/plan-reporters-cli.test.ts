import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlanDocument } from '../../src/report/plan-report.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { genser } from '../helpers/run-cli.js';
import { catalogCsv } from '../helpers/sample-catalog.js';
import { json, type ScriptedServer, scriptedServer } from '../upload/servers.js';

/** `genser plan` with every reporter, against a real server on 127.0.0.1 (nothing is sent to it). */

const dir = mkdtempSync(join(tmpdir(), 'genser-plan-reporters-'));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const file = (name: string, keep: number[]) => {
  const path = join(dir, `${name}.csv`);
  writeFileSync(path, catalogCsv(keep));
  return path;
};

let server: ScriptedServer;
afterEach(async () => {
  await server.close();
  clearSecrets();
});

describe('genser plan --reporter', () => {
  it('writes junit, html, github and json for a plan a guard would refuse; the text stays the data', async () => {
    server = await scriptedServer((_req, res) => json(res, 200, {}));
    const env = {
      GENSER_API_URL: server.url,
      GENSER_API_KEY: 'plan-reporters-key-1',
      GENSER_STATE_DIR: join(dir, 'state'),
      GITHUB_STEP_SUMMARY: join(dir, 'summary.md'),
    };
    expect((await genser(['upload', file('night1', range(1, 20))], env)).code).toBe(0);
    const sent = server.requests.length;
    const truncated = file('night2', range(1, 9));
    const junit = join(dir, 'out', 'plan.xml');
    const page = join(dir, 'out', 'plan.html');
    const report = join(dir, 'out', 'plan.json');
    const ran = await genser(
      [
        'plan',
        truncated,
        '--reporter',
        `junit=${junit}`,
        '--reporter',
        `html=${page}`,
        '--reporter',
        'github',
        '--reporter',
        'human',
        '--report',
        report,
      ],
      env,
    );
    expect(ran.code, ran.stderr).toBe(6);
    expect(server.requests.length).toBe(sent);
    // Nothing else takes stdout: the plan's text is there, the annotations on stderr.
    expect(ran.stdout).toContain('guards: the upload would refuse the run and send nothing (exit 6):');
    expect(ran.stderr).toContain('::error title=genser plan%3A guard --min-share::the feed has 9 rows');
    // Its XSD validity is test/report/plan-reporters.test.ts's.
    expect(readFileSync(junit, 'utf8')).toContain(
      '<testsuites name="genser plan" tests="3" failures="1" errors="0">',
    );
    expect(readFileSync(page, 'utf8')).toContain('<span class="verdict failed">would refuse</span>');
    expect(readFileSync(env.GITHUB_STEP_SUMMARY, 'utf8')).toContain('## genser plan: would refuse');
    const doc = JSON.parse(readFileSync(report, 'utf8')) as PlanDocument;
    expect(doc).toMatchObject({ rows: 9, known: 20, guards: { outcome: 'refuse' } });

    // A reporter on stdout: the text goes to stderr, so stdout is one document.
    const onStdout = await genser(['plan', truncated, '--reporter', 'junit', '--reporter', 'human'], env);
    expect(onStdout.code).toBe(6);
    expect(onStdout.stdout.startsWith('<?xml')).toBe(true);
    expect(onStdout.stderr).toContain('plan: 9 rows against 20 known products');
  });
});
