import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readFeed } from '../../src/read/index.js';
import { ExitError } from '../../src/shared/errors.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { Issue, SourceRecord } from '../../src/shared/types.js';
import { repoRoot } from './helpers.js';

// Public suites copied into fixtures/conformance (SOURCE.md there says from where).
const jsonDir = join(repoRoot, 'fixtures', 'conformance', 'json');
const csvDir = join(repoRoot, 'fixtures', 'conformance', 'csv');

interface Outcome {
  records: SourceRecord[];
  issues: Issue[];
  thrown?: ExitError;
}

async function outcome(file: string, inputType: 'json' | 'csv'): Promise<Outcome> {
  const records: SourceRecord[] = [];
  const issues: Issue[] = [];
  try {
    for await (const item of readFeed(file, { encoding: 'auto', inputType }, memoryLogger())) {
      if (item.type === 'record') records.push(item.record);
      else issues.push(item.issue);
    }
  } catch (err) {
    // Only a stop genser means (a UsageError, exit 2) is an outcome; anything else is a crash.
    if (!(err instanceof ExitError)) throw err;
    return { records, issues, thrown: err };
  }
  return { records, issues };
}

const names = readdirSync(jsonDir).filter((n) => n.endsWith('.json'));
const group = (prefix: string) => names.filter((n) => n.startsWith(prefix)).sort();

/**
 * n_ files that are refused before any JSON is parsed: not text at all (NUL or other control
 * bytes), nothing in them, or bytes that are not UTF-8 and not clearly anything else.
 */
const REFUSED_AS_INPUT: Record<string, 'binary' | 'empty_file' | 'encoding'> = {
  'n_array_a_invalid_utf8.json': 'encoding',
  'n_array_invalid_utf8.json': 'encoding',
  'n_number_invalid-utf-8-in-bigger-int.json': 'encoding',
  'n_number_invalid-utf-8-in-exponent.json': 'encoding',
  'n_number_invalid-utf-8-in-int.json': 'encoding',
  'n_number_real_with_invalid_utf8_after_e.json': 'encoding',
  'n_array_spaces_vertical_tab_formfeed.json': 'binary',
  'n_multidigit_number_then_00.json': 'binary',
  'n_object_lone_continuation_byte_in_key_and_trailing_comma.json': 'encoding',
  'n_single_space.json': 'empty_file',
  'n_string_backslash_00.json': 'binary',
  'n_string_invalid-utf-8-in-escape.json': 'encoding',
  'n_string_invalid_utf8_after_escape.json': 'encoding',
  'n_string_unescaped_ctrl_char.json': 'binary',
  'n_structure_UTF8_BOM_no_data.json': 'empty_file',
  'n_structure_incomplete_UTF8_BOM.json': 'encoding',
  'n_structure_lone-invalid-utf-8.json': 'encoding',
  'n_structure_no_data.json': 'empty_file',
  'n_structure_null-byte-outside-string.json': 'binary',
  'n_structure_single_eacute.json': 'encoding',
};

function refusedAs(o: Outcome): string {
  if (o.thrown) return 'encoding';
  if (o.issues.some((i) => i.code === 'invalid_json')) return 'syntax';
  return o.issues.map((i) => i.code).join(',') || 'accepted';
}

describe('JSONTestSuite (nst/JSONTestSuite, test_parsing)', () => {
  it('holds the whole suite', () => {
    expect([group('y_').length, group('n_').length, group('i_').length]).toEqual([95, 188, 35]);
  });

  it('refuses every n_ file: a syntax error with line and column, or a stated reason; never a silent accept', async () => {
    const seen: Record<string, string> = {};
    for (const name of group('n_')) {
      const o = await outcome(join(jsonDir, name), 'json');
      const as = refusedAs(o);
      seen[name] = as;
      expect(as, name).toBe(REFUSED_AS_INPUT[name] ?? 'syntax');
      for (const issue of o.issues.filter((i) => i.code === 'invalid_json')) {
        expect(issue.message, name).toMatch(/line \d+, column \d+/);
      }
      if (o.thrown) {
        expect(o.thrown.exitCode, name).toBe(2);
        expect(o.thrown.message, name).toMatch(/byte offset \d+/);
      }
    }
    expect(Object.keys(seen)).toHaveLength(188);
  });

  it('reads every y_ file without a syntax error; one that is not an array or object of products says so', async () => {
    for (const name of group('y_')) {
      const o = await outcome(join(jsonDir, name), 'json');
      expect(o.thrown, name).toBeUndefined();
      expect(
        o.issues.filter((i) => i.code === 'invalid_json'),
        name,
      ).toEqual([]);
      const value = JSON.parse(readFileSync(join(jsonDir, name), 'utf8'));
      const feedShaped =
        Array.isArray(value) || (typeof value === 'object' && value !== null && '@graph' in value);
      if (!feedShaped) {
        expect(
          o.issues.map((i) => i.code),
          name,
        ).toEqual(['not_a_feed']);
        expect(o.issues[0].message, name).toContain('not an array or object of products');
      } else {
        // An array: each element is a record, or said to be no object; an empty one has no rows.
        const elements = (value as unknown[]).length;
        const objects = (value as unknown[]).filter(
          (v) => typeof v === 'object' && v !== null && !Array.isArray(v),
        );
        expect(
          o.records.map((r) => r.fields),
          name,
        ).toEqual(objects);
        expect(
          o.issues.map((i) => i.code),
          name,
        ).toEqual(elements === 0 ? ['no_rows'] : Array(elements - objects.length).fill('not_an_object'));
      }
    }
  });

  it('gives every i_ file a defined outcome: read, or stopped with exit 2; never a crash', async () => {
    for (const name of group('i_')) {
      const o = await outcome(join(jsonDir, name), 'json');
      if (o.thrown) {
        expect(o.thrown.exitCode, name).toBe(2);
        continue;
      }
      expect(o.records.length + o.issues.length, name).toBeGreaterThan(0);
      for (const issue of o.issues.filter((i) => i.code === 'invalid_json')) {
        expect(issue.message, name).toMatch(/line \d+, column \d+/);
      }
    }
  });
});

describe('csv-spectrum (maxogden/csv-spectrum)', () => {
  const csvs = readdirSync(join(csvDir, 'csvs')).sort();

  it('holds the whole suite', () => {
    expect(csvs).toHaveLength(11);
  });

  for (const name of csvs) {
    it(`reads ${name} as its expected records`, async () => {
      const expected = JSON.parse(
        readFileSync(join(csvDir, 'json', name.replace(/\.csv$/, '.json')), 'utf8'),
      );
      const o = await outcome(join(csvDir, 'csvs', name), 'csv');
      expect(o.thrown).toBeUndefined();
      expect(o.issues).toEqual([]);
      expect(o.records.map((r) => r.fields)).toEqual(expected);
    });
  }
});
