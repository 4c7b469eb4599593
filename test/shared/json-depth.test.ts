import { describe, expect, it } from 'vitest';
import {
  MAX_JSON_DEPTH,
  MAX_RECORD_DEPTH,
  nestedDeeperThan,
  tooDeepAt,
} from '../../src/shared/json-depth.js';

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

describe('tooDeepAt', () => {
  it('names the bracket that passes the limit, the one function the readers share with the sandbox', () => {
    expect(tooDeepAt('[[1]]', 2)).toBe(-1);
    expect(tooDeepAt('{"a":[[{}]]}', 3)).toBe(7);
    expect(tooDeepAt('["[[[[", {"b": [[]]}]', 3)).toBe(16);
    const deep = `[{"sku":"A","name":${'['.repeat(5000)}${']'.repeat(5000)}}]`;
    expect(tooDeepAt(deep, MAX_RECORD_DEPTH)).toBe(19 + MAX_RECORD_DEPTH - 2);
    expect(MAX_RECORD_DEPTH).toBe(MAX_JSON_DEPTH - 2);
  });
});
