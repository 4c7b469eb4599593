import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ANNOTATIONS_PER_KIND,
  escapeData,
  escapeProperty,
  mdCell,
  mostUseful,
  renderGithub,
  workflowCommand,
} from '../../src/report/github.js';
import { toModel } from '../../src/report/model.js';
import { appendStepSummary } from '../../src/report/reporters.js';
import { rowError, uploadReportOf, validateReportOf } from './samples.js';

const dir = mkdtempSync(join(tmpdir(), 'genser-github-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The runner's parsing of a workflow command (actions/runner ActionCommand.TryParseV2), enough to read ours back. */
function parseCommand(line: string): {
  command: string;
  properties: Record<string, string>;
  message: string;
} {
  const m = /^::([a-z-]+)(?: ([^:]*))?::(.*)$/s.exec(line);
  if (!m) throw new Error(`not a workflow command: ${line}`);
  const unescaped = (s: string) =>
    s
      .replace(/%0D/g, '\r')
      .replace(/%0A/g, '\n')
      .replace(/%3A/g, ':')
      .replace(/%2C/g, ',')
      .replace(/%25/g, '%');
  const properties: Record<string, string> = {};
  for (const pair of (m[2] ?? '').split(',').filter(Boolean)) {
    const eq = pair.indexOf('=');
    properties[pair.slice(0, eq)] = unescaped(pair.slice(eq + 1));
  }
  return { command: m[1], properties, message: unescaped(m[3]) };
}

describe('GitHub Actions workflow commands', () => {
  it('escapes as @actions/core does: % CR LF in messages, also : and , in properties', () => {
    expect(escapeData('100% done\r\nnext')).toBe('100%25 done%0D%0Anext');
    expect(escapeProperty('a:b,c%\n')).toBe('a%3Ab%2Cc%25%0A');
    const line = workflowCommand('error', { file: 'dir/a,b:c.csv', line: 3, title: 'x' }, 'm: 1, 2%\nhint');
    expect(line).toBe('::error file=dir/a%2Cb%3Ac.csv,line=3,title=x::m: 1, 2%25%0Ahint');
    expect(line).not.toMatch(/[\r\n]/);
    expect(parseCommand(line)).toEqual({
      command: 'error',
      properties: { file: 'dir/a,b:c.csv', line: '3', title: 'x' },
      message: 'm: 1, 2%\nhint',
    });
  });

  it('a value that tries to inject a command stays inside its message', () => {
    const report = validateReportOf(
      [rowError('a.csv', 1, { value: 'x\n::add-mask::y', message: 'bad `x\n::set-env name=A::1`' })],
      { total: 1, valid: 0, invalid: 1 },
    );
    const { lines } = renderGithub(toModel({ command: 'validate', report }));
    for (const line of lines) expect(line.split('\n')).toHaveLength(1);
    expect(lines.filter((l) => l.startsWith('::set-env') || l.startsWith('::add-mask'))).toEqual([]);
  });

  it('an annotation per problem: file, line, title, and where, message and hint in the text', () => {
    const report = validateReportOf(
      [
        rowError('shop.csv', 7),
        { ...rowError('shop.csv', 8), severity: 'warning', code: 'recommended', hint: undefined },
      ],
      { total: 10, valid: 9, invalid: 1 },
    );
    const { lines } = renderGithub(toModel({ command: 'validate', report }));
    expect(lines).toHaveLength(3);
    const error = parseCommand(lines[0]);
    expect(error).toEqual({
      command: 'error',
      properties: { file: 'shop.csv', line: '8', title: 'genser type offers.price' },
      message:
        'row 7 (line 8) SKU-00007, column price: offers.price must be a number; got `12,000원`\nhint: declare a thousands separator',
    });
    expect(parseCommand(lines[1]).command).toBe('warning');
    expect(parseCommand(lines[2])).toEqual({
      command: 'notice',
      properties: { title: 'genser validate failed' },
      message: '10 rows, 9 valid, 1 invalid; 1 errors, 1 warnings',
    });
  });

  it('at most 10 of each kind, one per kind of problem first, then a summary that counts all', () => {
    const issues = [
      ...Array.from({ length: 30 }, (_, i) => rowError('a.csv', i + 1)),
      rowError('a.csv', 31, { code: 'required', field: 'name', column: 'name' }),
      rowError('a.csv', 32, { code: 'url', field: 'url', column: 'url' }),
      ...Array.from({ length: 15 }, (_, i) => ({
        ...rowError('a.csv', 40 + i),
        severity: 'warning' as const,
        code: 'recommended',
      })),
    ];
    const report = validateReportOf(issues, { total: 60, valid: 28, invalid: 32 });
    const model = toModel({ command: 'validate', report });
    const { lines } = renderGithub(model);
    const parsed = lines.map(parseCommand);
    const errors = parsed.filter((p) => p.command === 'error');
    expect(errors).toHaveLength(ANNOTATIONS_PER_KIND);
    // The two rare kinds are among the ten, and the ten stay in feed order.
    const titles = errors.map((e) => e.properties.title);
    expect(titles).toContain('genser required name');
    expect(titles).toContain('genser url url');
    const rows = errors.map((e) => Number(e.properties.line));
    expect(rows).toEqual([...rows].sort((a, b) => a - b));
    expect(parsed.filter((p) => p.command === 'warning')).toHaveLength(ANNOTATIONS_PER_KIND);
    const notice = parsed.at(-1)!;
    expect(notice.command).toBe('notice');
    expect(notice.message).toContain('60 rows, 28 valid, 32 invalid; 32 errors, 15 warnings');
    expect(notice.message).toContain('annotations show at most 10 errors and 10 warnings');
    expect(mostUseful(model.problems, 3).map((p) => p.code)).toEqual(['type', 'required', 'url']);
  });
});

describe('GitHub job summary', () => {
  it('counts, problems by kind and the first rows, in Markdown that no value can break', () => {
    const report = validateReportOf(
      [rowError('a.csv', 1, { value: 'a|b <img src=x onerror=alert(1)>', sku: '*bold*_x_' })],
      { total: 3, valid: 2, invalid: 1 },
    );
    const { summaryMarkdown } = renderGithub(toModel({ command: 'validate', report }));
    expect(summaryMarkdown).toContain('## genser validate: failed');
    expect(summaryMarkdown).toContain('| 3 | 2 | 1 | 1 | 0 | 0 |');
    expect(summaryMarkdown).toContain('### Problems by kind');
    expect(summaryMarkdown).toContain('| error | type offers.price | 1 |');
    expect(summaryMarkdown).toContain('a\\|b &lt;img src=x onerror=alert(1)&gt;');
    expect(summaryMarkdown).toContain('\\*bold\\*\\_x\\_');
    expect(summaryMarkdown).not.toContain('<img');
    // Every table line has the cells of its header.
    const table = summaryMarkdown.split('\n').filter((l) => l.startsWith('| error | a.csv'));
    expect(table[0].split(/(?<!\\)\|/).length - 2).toBe(8);
    expect(mdCell('x\ny\u0000')).toBe('x y ');
  });

  it('uploads add their outcomes', () => {
    const { summaryMarkdown } = renderGithub(toModel({ command: 'upload', report: uploadReportOf() }));
    expect(summaryMarkdown).toContain('### Upload');
    expect(summaryMarkdown).toContain('| 11 | 8 | 1 | 2 | 3 | 2 | no |');
    expect(summaryMarkdown).toContain('| error | not\\_delivered | 2 |');
  });

  it('is appended to the file GITHUB_STEP_SUMMARY names, after what is there; no variable, no file', () => {
    const path = join(dir, 'summary.md');
    writeFileSync(path, '# earlier step\n');
    expect(appendStepSummary('## genser\n', { GITHUB_STEP_SUMMARY: path })).toBe(path);
    expect(readFileSync(path, 'utf8')).toBe('# earlier step\n## genser\n\n');
    const calls: string[] = [];
    expect(appendStepSummary('x', {}, (p) => calls.push(p))).toBeUndefined();
    expect(calls).toEqual([]);
  });
});
