import { describe, expect, it } from 'vitest';
import { nestedDeeperThan } from '../../src/sandbox/depth.js';

const b = (s: string) => Buffer.from(s);

describe('nestedDeeperThan', () => {
  it('counts objects and arrays, not brackets inside strings', () => {
    expect(nestedDeeperThan(b('[[[1]]]'), 3)).toBe(false);
    expect(nestedDeeperThan(b('[[[[1]]]]'), 3)).toBe(true);
    expect(nestedDeeperThan(b('{"a":{"b":[{}]}}'), 3)).toBe(true);
    expect(nestedDeeperThan(b('{"a":"[[[[[[","b":1}'), 1)).toBe(false);
  });
  it('handles escaped quotes and backslashes inside strings', () => {
    expect(nestedDeeperThan(b('["a\\"[[[[", 1]'), 1)).toBe(false);
    expect(nestedDeeperThan(b('["a\\\\", [[1]]]'), 2)).toBe(true);
    expect(nestedDeeperThan(b('["a\\\\\\"[[[", 1]'), 1)).toBe(false);
  });
  it('reads multi-byte text and stops at an unterminated string', () => {
    expect(nestedDeeperThan(b('[{"name":"상품 [[[ 商品"}]'), 2)).toBe(false);
    expect(nestedDeeperThan(b('["open [[[[[['), 1)).toBe(false);
  });
});
