import { describe, expect, it } from 'vitest';
import { threads } from '../../src/cli/parsers.js';
import { workersFrom } from '../../src/commands/feed-settings.js';

describe('--threads', () => {
  const parse = threads(64);

  it('takes auto or a count from 0 to 64, from a flag, the environment or a config file', () => {
    expect(parse('auto', '--threads')).toBe('auto');
    expect(parse('0', '--threads')).toBe(0);
    expect(parse('2', 'GENSER_THREADS')).toBe(2);
    expect(parse(64, 'config threads')).toBe(64);
  });

  it('refuses anything else in one line naming where it came from', () => {
    for (const bad of ['65', '-1', '1.5', 'two', ''])
      expect(() => parse(bad, 'GENSER_THREADS')).toThrow(
        `GENSER_THREADS must be auto or a whole number from 0 to 64; got "${bad}"`,
      );
  });

  it('is a count of feed workers (0: none), or auto', () => {
    expect(workersFrom({ threads: 'auto' })).toBe('auto');
    expect(workersFrom({ threads: 0 })).toBe(0);
    expect(workersFrom({ threads: 1 })).toBe(1);
    expect(workersFrom({ threads: 4 })).toBe(4);
  });
});
