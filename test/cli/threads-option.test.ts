import { describe, expect, it } from 'vitest';
import { threads } from '../../src/cli/parsers.js';
import { threadedFrom } from '../../src/commands/feed-settings.js';

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

  it('keeps 0 and 1 as before and makes 2 or more a pool', () => {
    expect(threadedFrom({ threads: 'auto' })).toBeUndefined();
    expect(threadedFrom({ threads: 0 })).toBe(false);
    expect(threadedFrom({ threads: 1 })).toBe(true);
    expect(threadedFrom({ threads: 4 })).toBe(4);
  });
});
