import { describe, expect, it } from 'vitest';
import { RepeatedWarnings, streamLogger } from '../../src/shared/logger.js';

function capture() {
  const lines: string[] = [];
  return { stream: { write: (s: string) => lines.push(s) }, lines };
}

describe('warnings', () => {
  it('shows a repeated warning three times, then counts the rest in one line', () => {
    const { stream, lines } = capture();
    const log = streamLogger({}, stream);
    for (let row = 1; row <= 2_000; row++)
      log.warn(`row ${row}: "categories.code" read as category.codeValue`);
    log.warn('another kind of warning');
    log.flush?.();
    expect(lines).toHaveLength(5);
    expect(lines[3]).toBe('warning: another kind of warning\n');
    expect(lines[4]).toBe(
      'warning: the same warning on 1,997 more rows (as: row 1: "categories.code" read as category.codeValue)\n',
    );
  });
  it('--quiet and --no-warnings leave warnings out; errors stay', () => {
    for (const options of [{ quiet: true }, { warnings: false }]) {
      const { stream, lines } = capture();
      const log = streamLogger(options, stream);
      log.warn('w');
      log.error('e');
      log.flush?.();
      expect(lines).toEqual(['error: e\n']);
    }
  });
  it('counts nothing when nothing repeats', () => {
    const r = new RepeatedWarnings();
    expect(r.show('a 1')).toBe(true);
    expect(r.summary()).toEqual([]);
  });
});
