import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { genser } from '../helpers/run-cli.js';
import { junitXsdValid } from '../helpers/xmllint.js';

/**
 * `--reporter` on the commands (docs/ci.md): parsed before any work, from flag, environment
 * and config file; `--json` and `--report FILE` as before; the reports written at the end.
 */
const root = join(import.meta.dirname, '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'genser-reporters-'));
const invalid = join(root, 'fixtures', 'catalog-invalid.csv');
const valid = join(root, 'fixtures', 'catalog.csv');

const junitValid = (path: string) => junitXsdValid(readFileSync(path, 'utf8'), basename(path));

describe('--reporter', () => {
  it('a bad value stops the command with exit 2 before it reads anything', async () => {
    const r = await genser(['validate', join(dir, 'missing.csv'), '--reporter', 'junitt=x.xml']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown reporter "junitt"/);
    expect(r.stderr).not.toMatch(/does not exist/);
    const env = await genser(['upload', valid, '--dry-run'], { GENSER_REPORTER: 'html=a.html xml' });
    expect(env.code).toBe(2);
    expect(env.stderr).toMatch(/unknown reporter "xml"/);
    const convert = await genser(['convert', valid, '--reporter', 'junit']);
    expect(convert.code).toBe(2);
    expect(convert.stderr).toMatch(/reporter junit would write to stdout, where the converted data go/);
    expect(convert.stdout).toBe('');
  });

  it('flags, GENSER_REPORTER and the config file name reporters; naming one replaces human', async () => {
    const junit = join(dir, 'flag', 'r.xml');
    const html = join(dir, 'flag', 'r.html');
    const byFlag = await genser([
      'validate',
      invalid,
      '--reporter',
      `junit=${junit}`,
      '--reporter',
      `html=${html}`,
    ]);
    expect(byFlag.code).toBe(1);
    expect(byFlag.stdout).toBe('');
    expect(byFlag.stderr).not.toMatch(/FAILED: /);
    await junitValid(junit);
    expect(readFileSync(html, 'utf8')).toMatch(/^<!doctype html>/i);

    const envJunit = join(dir, 'env.xml');
    const byEnv = await genser(['validate', invalid], { GENSER_REPORTER: `human junit=${envJunit}` });
    expect(byEnv.code).toBe(1);
    expect(byEnv.stderr).toMatch(/FAILED: 10 row\(s\), 1 valid, 9 invalid/);
    await junitValid(envJunit);

    const config = join(dir, 'genser.config.json');
    writeFileSync(config, JSON.stringify({ reporter: ['junit=from-config.xml'] }));
    const byConfig = await genser(['validate', invalid, '--config', config]);
    expect(byConfig.code).toBe(1);
    // As every path in a config file, relative to the file's folder.
    await junitValid(join(dir, 'from-config.xml'));
  });

  it('--json and --report FILE are the json reporter, as before; --reporter json adds to others', async () => {
    const report = join(dir, 'report.json');
    const r = await genser(['validate', invalid, '--json', '--report', report]);
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/FAILED: /);
    expect(readFileSync(report, 'utf8')).toBe(r.stdout);
    expect(JSON.parse(r.stdout).rows.invalid).toBeGreaterThan(0);

    const junit = join(dir, 'with-json.xml');
    const both = await genser(['validate', invalid, '--json', '--reporter', `junit=${junit}`]);
    expect(JSON.parse(both.stdout)).toEqual(JSON.parse(r.stdout));
    await junitValid(junit);

    // --report alone keeps the human summary.
    const alone = await genser(['validate', invalid, '--report', join(dir, 'alone.json')]);
    expect(alone.stderr).toMatch(/FAILED: /);
    expect(alone.stdout).toBe('');
    expect(JSON.parse(readFileSync(join(dir, 'alone.json'), 'utf8')).rows).toEqual(JSON.parse(r.stdout).rows);
  });

  it('GitHub Actions with no reporter named: human and github', async () => {
    const summary = join(dir, 'step.md');
    const r = await genser(['validate', invalid], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^::error file=.*catalog-invalid\.csv,line=\d+/m);
    expect(r.stderr).toMatch(/FAILED: /);
    expect(readFileSync(summary, 'utf8')).toContain('genser validate');
  });

  it('upload and the events commands write the reports of their real documents', async () => {
    const up = join(dir, 'upload.xml');
    const upJson = join(dir, 'upload.json');
    const u = await genser([
      'upload',
      invalid,
      '--sandbox',
      '--reporter',
      `junit=${up}`,
      '--reporter',
      `json=${upJson}`,
    ]);
    expect(u.code).toBe(1);
    await junitValid(up);
    expect(JSON.parse(readFileSync(upJson, 'utf8')).summary.accepted).toBeGreaterThan(0);

    const events = join(dir, 'events.ndjson');
    const example = await genser(['events', 'example']);
    const lines = example.stdout.trim().split('\n');
    writeFileSync(events, `${[...lines, '{"type":"view_prodcut"}'].join('\n')}\n`);

    const evXml = join(dir, 'events.xml');
    const v = await genser([
      'events',
      'validate',
      events,
      '--reporter',
      `junit=${evXml}`,
      '--reporter',
      'json',
    ]);
    expect(v.code).toBe(1);
    const vDoc = JSON.parse(v.stdout);
    expect(Object.keys(vDoc)).toEqual(['files', 'events', 'issues', 'problemCount', 'truncated']);
    expect(vDoc.events).toEqual({ total: 12, valid: 11, invalid: 1 });
    await junitValid(evXml);
    expect(readFileSync(evXml, 'utf8')).toContain(`tests="1" failures="1"`);

    const sendHtml = join(dir, 'send.html');
    const sendJson = join(dir, 'send.json');
    const s = await genser([
      'events',
      'send',
      events,
      '--sandbox',
      '--reporter',
      `html=${sendHtml}`,
      '--report',
      sendJson,
    ]);
    expect(s.code).toBe(1);
    expect(s.stdout).toBe('');
    const sDoc = JSON.parse(readFileSync(sendJson, 'utf8'));
    expect(sDoc.summary).toMatchObject({ rows: 12, invalid: 1, accepted: 11 });
    expect(readFileSync(sendHtml, 'utf8')).toMatch(/Accepted/);
  });
});
