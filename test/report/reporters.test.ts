import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseReporters, writeReports } from '../../src/report/reporters.js';
import { withJsonIssues } from '../../src/report/validate-report.js';
import { ExitError } from '../../src/shared/errors.js';
import { clearSecrets, registerSecret } from '../../src/shared/secrets.js';
import { rowError, uploadReportOf, validateReportOf } from './samples.js';

const dir = mkdtempSync(join(tmpdir(), 'genser-reporters-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sink() {
  const chunks: string[] = [];
  return { write: (t: string) => chunks.push(t), text: () => chunks.join('') };
}

function usageError(fn: () => unknown): ExitError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ExitError) return err;
    throw err;
  }
  throw new Error('no error thrown');
}

describe('parseReporters', () => {
  it('none named: human; in GitHub Actions also github', () => {
    expect(parseReporters([], {})).toEqual([{ name: 'human' }]);
    expect(parseReporters([], { GITHUB_ACTIONS: 'true' })).toEqual([{ name: 'human' }, { name: 'github' }]);
    // Named reporters replace the defaults, also in Actions.
    expect(parseReporters(['junit=r.xml'], { GITHUB_ACTIONS: 'true' })).toEqual([
      { name: 'junit', file: 'r.xml' },
    ]);
  });

  it('NAME[=FILE], repeatable, in order; - is the stream; duplicates once', () => {
    expect(parseReporters(['junit=reports/genser.xml', 'github', 'HTML=report.html', 'github'], {})).toEqual([
      { name: 'junit', file: 'reports/genser.xml' },
      { name: 'github' },
      { name: 'html', file: 'report.html' },
    ]);
    expect(parseReporters(['json=-', 'human'], {})).toEqual([{ name: 'json' }, { name: 'human' }]);
    // github writes to stderr: it goes with a document on stdout.
    expect(parseReporters(['junit', 'github'], {})).toEqual([{ name: 'junit' }, { name: 'github' }]);
    // A file name may hold '='.
    expect(parseReporters(['html=a=b.html'], {})).toEqual([{ name: 'html', file: 'a=b.html' }]);
  });

  it('refuses unknown names, empty files, two reports on stdout and two in one file', () => {
    const unknown = usageError(() => parseReporters(['xml=a'], {}));
    expect(unknown.exitCode).toBe(2);
    expect(unknown.message).toBe('unknown reporter "xml" in --reporter xml=a');
    expect(unknown.hint).toContain('human, json, junit, github, html');
    expect(usageError(() => parseReporters(['junit='], {})).message).toBe('--reporter junit= names no file');
    const stdout = usageError(() => parseReporters(['json', 'junit'], {}));
    expect(stdout.message).toBe('reporters json and junit would both write to stdout');
    expect(stdout.hint).toBe('give all but one a file, e.g. --reporter junit=report.out');
    expect(usageError(() => parseReporters(['json=r', 'html=r'], {})).message).toBe(
      'reporters json and html would both write r',
    );
    // convert without -o writes its payloads to stdout.
    const taken = usageError(() => parseReporters(['github', 'html'], {}, { stdoutTakenBy: 'the payloads' }));
    expect(taken.message).toBe('reporter html would write to stdout, where the payloads go');
    expect(taken.hint).toBe('give it a file, e.g. --reporter html=report.out');
    expect(parseReporters([], { GITHUB_ACTIONS: 'true' }, { stdoutTakenBy: 'the payloads' })).toHaveLength(2);
  });
});

describe('writeReports', () => {
  const report = validateReportOf([rowError('a.csv', 2)], { total: 3, valid: 2, invalid: 1 });

  it('renders each reporter to its file or stream; the folder is created; the job summary appended', () => {
    const stdout = sink();
    const stderr = sink();
    const summary = join(dir, 'step-summary.md');
    writeFileSync(summary, '');
    let human = 0;
    const written = writeReports(
      parseReporters(
        [
          'junit=' + join(dir, 'reports', 'genser.xml'),
          'github',
          `html=${join(dir, 'report.html')}`,
          'human',
          `json=${join(dir, 'r.json')}`,
        ],
        {},
      ),
      { command: 'validate', report },
      { stdout, stderr, env: { GITHUB_STEP_SUMMARY: summary }, printHuman: () => human++ },
    );
    expect(written).toEqual([
      join(dir, 'reports', 'genser.xml'),
      summary,
      join(dir, 'report.html'),
      join(dir, 'r.json'),
    ]);
    expect(readFileSync(join(dir, 'reports', 'genser.xml'), 'utf8')).toContain(
      '<testsuites name="genser validate" tests="1" failures="1"',
    );
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toMatch(/^<!doctype html>/);
    const json = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8'));
    expect(json).toEqual(JSON.parse(JSON.stringify(withJsonIssues(report))));
    // The JSON's message ends with the hint, as it always has; the hint is also alone (docs/feeds.md).
    const withHint = json.issues.find((i: { hint?: string }) => i.hint);
    expect(withHint.message).toBe(
      `${withHint.message.slice(0, -(withHint.hint.length + 2))}; ${withHint.hint}`,
    );
    expect(withHint.message).toMatch(/; declare a thousands separator$/);
    expect(readFileSync(summary, 'utf8')).toContain('## genser validate: failed');
    // Annotations are messages: stderr, which the Actions runner reads too. stdout stays free.
    expect(stderr.text()).toMatch(/^::error file=a\.csv,line=3,/);
    expect(stdout.text()).toBe('');
    // human on stderr is the command's own output.
    expect(human).toBe(1);
  });

  it('without the command output, human goes to stderr as plain text; human=FILE writes it', () => {
    const stderr = sink();
    const file = join(dir, 'human.txt');
    writeReports(
      parseReporters(['human', `human=${file}`], {}),
      { command: 'validate', report },
      { stdout: sink(), stderr, env: {} },
    );
    expect(stderr.text()).toBe(readFileSync(file, 'utf8'));
    expect(stderr.text()).toContain(
      '  error a.csv row 2 (line 3) SKU-00002, column price: offers.price must be a number',
    );
    expect(stderr.text()).toMatch(/FAILED: 3 row\(s\), 2 valid, 1 invalid, 1 error\(s\), 0 warning\(s\)\n$/);
  });

  it("json is the command's report as --json prints it, also for uploads and events", () => {
    const stdout = sink();
    writeReports(
      [{ name: 'json' }],
      { command: 'upload', report: uploadReportOf() },
      { stdout, stderr: sink(), env: {} },
    );
    expect(JSON.parse(stdout.text())).toEqual(JSON.parse(JSON.stringify(withJsonIssues(uploadReportOf()))));
    const events = {
      files: ['e.ndjson'],
      events: { total: 1, valid: 1, invalid: 0 },
      issues: [],
      problemCount: 0,
      truncated: false,
    };
    const out = sink();
    writeReports(
      [{ name: 'json' }],
      { command: 'events validate', report: events },
      { stdout: out, stderr: sink(), env: {} },
    );
    expect(JSON.parse(out.text())).toEqual(events);
  });

  it('a file that cannot be written: the others are still written, then one usage error naming it', () => {
    const blocker = join(dir, 'not-a-folder');
    writeFileSync(blocker, '');
    const ok = join(dir, 'ok.html');
    const err = usageError(() =>
      writeReports(
        parseReporters([`junit=${join(blocker, 'x.xml')}`, `html=${ok}`], {}),
        { command: 'validate', report },
        {
          stdout: sink(),
          stderr: sink(),
          env: {},
        },
      ),
    );
    expect(err.exitCode).toBe(2);
    expect(err.message).toMatch(
      /^cannot write the junit report to .*not-a-folder\/x\.xml: (ENOTDIR|EEXIST)$/,
    );
    expect(err.hint).toContain('--reporter NAME=FILE');
    expect(existsSync(ok)).toBe(true);
  });

  it('no reporter shows a registered secret', () => {
    registerSecret('sk-live-abcdef123456');
    try {
      const secretReport = validateReportOf(
        [rowError('a.csv', 2, { value: 'sk-live-abcdef123456', message: 'bad key sk-live-abcdef123456' })],
        {
          total: 1,
          valid: 0,
          invalid: 1,
        },
      );
      const stderr = sink();
      const files = ['junit', 'html', 'json', 'human'].map((n) => `${n}=${join(dir, `secret.${n}`)}`);
      const summary = join(dir, 'secret-summary.md');
      writeReports(
        parseReporters([...files, 'github'], {}),
        { command: 'validate', report: secretReport },
        {
          stdout: sink(),
          stderr,
          env: { GITHUB_STEP_SUMMARY: summary },
        },
      );
      for (const f of [...files.map((f) => f.slice(f.indexOf('=') + 1)), summary])
        expect(readFileSync(f, 'utf8')).not.toContain('sk-live-abcdef123456');
      expect(stderr.text()).not.toContain('sk-live-abcdef123456');
      expect(stderr.text()).toContain('***');
    } finally {
      clearSecrets();
    }
  });
});
