import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readJson } from '../../src/read/json.js';
import { readNdjson } from '../../src/read/ndjson.js';
import { MAX_RECORD_DEPTH } from '../../src/shared/json-depth.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { collect, fixture, pieces, read } from './helpers.js';

const jsonOptions = () => ({ file: 'f.json', autoEncoding: false, log: memoryLogger() });

describe('JSON documents', () => {
  it('streams a top-level array of flat objects with the line each element starts on', async () => {
    const r = await read(fixture('rows.json'));
    expect(r.issues).toEqual([]);
    expect(r.records.map((x) => [x.row, x.line, x.shape])).toEqual([
      [1, 2, 'rows'],
      [2, 3, 'rows'],
      [3, 8, 'rows'],
    ]);
    expect(r.records[1].fields).toEqual({
      sku: 'P-2',
      name: 'second, with "quotes" and ] brackets }',
      price: 2000,
    });
  });

  it('recognises a legacy v0.3 array', async () => {
    const r = await read(fixture('legacy.json'));
    expect(r.records.map((x) => x.shape)).toEqual(['legacy', 'legacy']);
    expect(r.records[0].fields).toMatchObject({ code: 'L-1', priceInfo: { price: 1000 } });
  });

  it('reads the @graph of a standard envelope and logs the members it skips', async () => {
    const log = memoryLogger();
    const { readFeed } = await import('../../src/read/index.js');
    const r = await collect(
      readFeed(fixture('envelope.json'), { encoding: 'auto' }, { ...log, debug: log.debug }),
    );
    // It has no "id": a warning (contract 2.7 recommends it), not an error.
    expect(r.issues).toMatchObject([{ severity: 'warning', code: 'envelope_recommended' }]);
    expect(r.issues[0].message).toMatch(/the envelope has no id \(recommended by the contract, section 2\.7/);
    expect(r.records.map((x) => [x.row, x.line, x.shape, x.fields.sku])).toEqual([
      [1, 6, 'graph', 'G-1'],
      [2, 7, 'graph', 'G-2'],
    ]);
    expect(log.lines.join('\n')).toContain('@context, specversion, type, agent');
  });

  it('reports a malformed element with line and column and reads on', async () => {
    const r = await read(fixture('bad-element.json'));
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ code: 'invalid_json', row: 2, line: 3 });
    expect(r.issues[0].message).toContain('line 3, column 30');
    expect(r.records.map((x) => [x.row, x.fields.sku])).toEqual([
      [1, 'M-1'],
      [3, 'M-3'],
    ]);
  });

  it('reports a truncated document after the complete elements', async () => {
    const r = await read(fixture('truncated.json'));
    expect(r.records.map((x) => x.fields.sku)).toEqual(['T-1']);
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0].code).toBe('invalid_json');
    expect(r.issues[0].message).toMatch(/ends early at line 3, column 30 inside element 2 .*truncated/);
  });

  it('says what is wrong with other documents', async () => {
    // Valid JSON that is not a feed is not "malformed": it is said for what it is.
    const notArray = await read(fixture('not-array.json'));
    expect(notArray.issues).toHaveLength(1);
    expect(notArray.issues[0]).toMatchObject({ code: 'not_a_feed', line: 1 });
    expect(notArray.issues[0].message).toContain('holds a JSON string, not an array or object of products');
    const noGraph = (await read(fixture('no-graph.json'))).issues;
    expect(noGraph.map((i) => i.code)).toEqual(['not_a_feed']);
    expect(noGraph[0].message).toContain('no "@graph" array');
    expect((await read(fixture('empty-array.json'))).issues.map((i) => i.code)).toEqual(['no_rows']);
    const text = '[{"a":1}] [2]';
    const extra = await collect(readJson(pieces(text, 100), jsonOptions()));
    expect(extra.records).toHaveLength(1);
    expect(extra.issues[0].message).toContain('unexpected text after the end');
    const scalars = await collect(readJson(pieces('[1, {"a": 2}, null]', 100), jsonOptions()));
    expect(scalars.issues.map((i) => [i.code, i.row])).toEqual([
      ['not_an_object', 1],
      ['not_an_object', 3],
    ]);
  });

  it('gives the same items whatever the size of the text pieces', async () => {
    for (const name of ['rows.json', 'envelope.json', 'bad-element.json', 'legacy.json']) {
      const text = readFileSync(fixture(name), 'utf8');
      const whole = await collect(readJson(pieces(text, text.length), jsonOptions()));
      for (const size of [1, 2, 5]) {
        expect((await collect(readJson(pieces(text, size), jsonOptions()))).items).toEqual(whole.items);
      }
    }
  });

  it('round-trips random arrays of objects with their lines (property)', async () => {
    const value = fc.jsonValue({ maxDepth: 2 });
    const object = fc.dictionary(fc.string({ maxLength: 6 }), value, { maxKeys: 4 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(object, { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 9 }),
        async (objects, pretty, size) => {
          // Pretty: each element on its own lines; else all on line 1.
          const texts = objects.map((o) => (pretty ? JSON.stringify(o, null, 2) : JSON.stringify(o)));
          const text = `[${pretty ? '\n' : ''}${texts.join(pretty ? ',\n' : ',')}${pretty ? '\n' : ''}]`;
          const r = await collect(readJson(pieces(text, size), jsonOptions()));
          expect(r.issues).toEqual([]);
          expect(r.records.map((x) => x.fields)).toEqual(JSON.parse(text));
          let line = pretty ? 2 : 1;
          r.records.forEach((record, i) => {
            expect(record.line).toBe(line);
            if (pretty) line += texts[i].split('\n').length;
          });
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('NDJSON', () => {
  it('reads one object per line, skips blank lines, reports bad lines and reads on', async () => {
    const r = await read(fixture('feed.ndjson'));
    expect(
      r.items.map((i) =>
        i.type === 'record'
          ? ['record', i.record.row, i.record.line, i.record.shape]
          : ['issue', i.issue.code, i.issue.row, i.issue.line],
      ),
    ).toEqual([
      ['record', 1, 1, 'rows'],
      ['issue', 'invalid_json', 2, 3],
      ['record', 3, 4, 'graph'],
      ['issue', 'not_an_object', 4, 5],
      ['record', 5, 6, 'legacy'],
    ]);
    expect(r.issues[0].message).toMatch(/^line 3, column 24: not valid JSON \(expected a value, found 'b'\)/);
  });

  it('reads CRLF .jsonl and counts its lines', async () => {
    const r = await read(fixture('feed-crlf.jsonl'));
    expect(r.records.map((x) => [x.row, x.line, x.fields.sku])).toEqual([
      [1, 1, 'Q-1'],
      [2, 3, 'Q-2'],
    ]);
  });

  it('gives the same items with tiny pieces and says when there are no lines', async () => {
    const text = readFileSync(fixture('feed.ndjson'), 'utf8');
    const opts = { file: 'f.ndjson', autoEncoding: false, log: memoryLogger() };
    const whole = await collect(readNdjson(pieces(text, 1000), opts));
    expect((await collect(readNdjson(pieces(text, 1), opts))).items).toEqual(whole.items);
    expect((await collect(readNdjson(pieces('\n\n', 1), opts))).issues.map((i) => i.code)).toEqual([
      'empty_file',
    ]);
  });
});

describe('overlong elements and lines are skipped, memory stays bounded', () => {
  it('JSON: an element over the limit is field_too_large; the next ones read', async () => {
    const text = `[\n{"sku": "A"},\n{"sku": "BIG", "d": "${'z'.repeat(3000)}"},\n{"sku": "C"}\n]`;
    const r = await collect(readJson(pieces(text, 100), { ...jsonOptions(), pendingLimit: 1000 }));
    expect(r.issues.map((i) => [i.code, i.row, i.line])).toEqual([['field_too_large', 2, 3]]);
    expect(r.records.map((x) => [x.row, x.line, x.fields.sku])).toEqual([
      [1, 2, 'A'],
      [3, 4, 'C'],
    ]);
  });

  it('NDJSON: a line over the limit is field_too_large; the next lines read', async () => {
    const text = `{"sku": "A"}\n{"sku": "BIG", "d": "${'z'.repeat(3000)}"}\n{"sku": "C"}\n`;
    const opts = { file: 'f.ndjson', autoEncoding: false, log: memoryLogger(), pendingLimit: 1000 };
    const r = await collect(readNdjson(pieces(text, 100), opts));
    expect(r.issues.map((i) => [i.code, i.row, i.line])).toEqual([['field_too_large', 2, 2]]);
    expect(r.records.map((x) => [x.row, x.line, x.fields.sku])).toEqual([
      [1, 1, 'A'],
      [3, 3, 'C'],
    ]);
  });
});

describe('strict JSON (RFC 8259): every syntax error said with line and column', () => {
  // Only the syntax errors: an envelope without agent also gets an `envelope` error (and one
  // without @context and friends an `envelope_recommended` warning), tested in test/validate.
  const run = async (text: string) => {
    const r = await collect(readJson(pieces(text, 7), jsonOptions()));
    return { ...r, issues: r.issues.filter((i) => i.severity === 'error' && i.code !== 'envelope') };
  };
  const skus = (r: Awaited<ReturnType<typeof run>>) => r.records.map((x) => x.fields.sku);

  it('a missing value between, before or after elements is an error; the elements around it are read', async () => {
    const cases: Array<[string, string]> = [
      ['[{"sku":"A"},{"sku":"B"},]', 'line 1, column 26: a value is missing before "]"'],
      ['[{"sku":"A"},,{"sku":"B"}]', 'line 1, column 14: a value is missing before ","'],
      ['[,{"sku":"A"},{"sku":"B"}]', 'line 1, column 2: a value is missing before ","'],
      ['{"@graph": [{"sku":"A"},\n{"sku":"B"},\n]}', 'line 3, column 1: a value is missing before "]"'],
      ['{"@graph": [{"sku":"A"},,{"sku":"B"}]}', 'line 1, column 25: a value is missing before ","'],
    ];
    for (const [text, where] of cases) {
      const r = await run(text);
      expect(skus(r), text).toEqual(['A', 'B']);
      expect(
        r.issues.map((i) => i.code),
        text,
      ).toEqual(['invalid_json']);
      expect(r.issues[0].message, text).toContain(where);
    }
  });

  it('checks the envelope members it does not read', async () => {
    const context = await run('{"@context": nope, "@graph": [{"sku":"A"}]}');
    expect(skus(context)).toEqual(['A']);
    expect(context.issues).toHaveLength(1);
    expect(context.issues[0].message).toMatch(/member "@context" is not valid JSON at line 1, column 15/);
    const after = await run('{"@graph": [{"sku":"A"}], "x": [1,,2]}');
    expect(skus(after)).toEqual(['A']);
    expect(after.issues[0].message).toMatch(
      /member "x" is not valid JSON at line 1, column 35: a value is missing/,
    );
    const trailing = await run('{"@graph": [{"sku":"A"}],}');
    expect(trailing.issues[0].message).toMatch(/line 1, column 26: expected a member name/);
    const badName = await run('{"@graph": [{"sku":"A"}], "a\\x": 1}');
    expect(badName.issues[0].message).toMatch(
      /line 1, column 30: the member name is not a valid JSON string: invalid escape/,
    );
    // Member names are JSON strings: an escaped "@graph" is "@graph".
    expect(skus(await run('{"@gr\\u0061ph": [{"sku":"A"}]}'))).toEqual(['A']);
  });

  it('gives an element JSON.parse refuses its line and column, whatever the Node version says', async () => {
    const r = await run('[\n  {"sku":"A"},\n  {"sku": "B", "n": \f1},\n  {"sku":"C"}\n]');
    expect(skus(r)).toEqual(['A', 'C']);
    expect(r.issues[0]).toMatchObject({ code: 'invalid_json', row: 2, line: 3 });
    expect(r.issues[0].message).toContain('line 3, column 21: expected a value, found U+000C');
    const lone = await run('[\f]');
    expect(lone.issues.map((i) => i.code)).toEqual(['invalid_json']);
  });

  it('says a valid top-level scalar is not an array or object of products, not that it is malformed', async () => {
    for (const [text, kind] of [
      ['42', 'number'],
      ['null', 'null'],
      ['" "', 'string'],
      ['\n  true  \n', 'boolean'],
    ]) {
      const r = await run(text);
      expect(
        r.issues.map((i) => i.code),
        text,
      ).toEqual(['not_a_feed']);
      expect(r.issues[0].message).toContain(`holds a JSON ${kind}, not an array or object of products`);
    }
    const bad = await run('nope');
    expect(bad.issues.map((i) => i.code)).toEqual(['invalid_json']);
    expect(bad.issues[0].message).toContain('malformed at line 1, column 2');
  });

  it('reports a truncated document with line and column', async () => {
    const r = await run('[{"sku":"A"},\n{"sku": "B');
    expect(r.issues[0].message).toContain('ends early at line 2, column 11 inside element 2');
  });
});

describe('deep nesting is a bad row, never a crash', () => {
  const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;

  it('JSON: an element nested deeper than the service takes is skipped with its position; the rest is read', async () => {
    const text = `[{"sku":"A","name":${deep}},\n{"sku":"B"}]`;
    const r = await collect(readJson(pieces(text, 1000), jsonOptions()));
    expect(r.records.map((x) => [x.row, x.fields.sku])).toEqual([[2, 'B']]);
    expect(r.issues).toHaveLength(1);
    expect(r.issues[0]).toMatchObject({ code: 'too_deep', row: 1, line: 1 });
    expect(r.issues[0].message).toContain(`more than ${MAX_RECORD_DEPTH} levels deep (at line 1, column 81)`);
    // Exactly the limit is fine.
    const limit = `${'['.repeat(MAX_RECORD_DEPTH - 1)}${']'.repeat(MAX_RECORD_DEPTH - 1)}`;
    const ok = await collect(readJson(pieces(`[{"sku":"A","n":${limit}}]`, 5), jsonOptions()));
    expect(ok.issues).toEqual([]);
  });

  it('NDJSON: the same for a line', async () => {
    const text = `{"sku":"A","name":${deep}}\n{"sku":"B"}\n`;
    const r = await collect(readNdjson(pieces(text, 999), { ...jsonOptions(), file: 'f.ndjson' }));
    expect(r.records.map((x) => [x.row, x.fields.sku])).toEqual([[2, 'B']]);
    expect(r.issues[0]).toMatchObject({ code: 'too_deep', row: 1, line: 1 });
    expect(r.issues[0].message).toContain('(column 80)');
  });
});

describe('strict NDJSON lines', () => {
  it('only JSON white space is blank; anything else on a line is checked', async () => {
    const text = '{"sku":"A"}\n \t\r\n\f{"sku":"B"}\n{"sku":"C"}\u00a0\n{"sku":"D"}\n';
    const r = await collect(readNdjson(pieces(text, 3), { ...jsonOptions(), file: 'f.ndjson' }));
    expect(r.records.map((x) => x.fields.sku)).toEqual(['A', 'D']);
    expect(r.issues.map((i) => [i.code, i.line])).toEqual([
      ['invalid_json', 3],
      ['invalid_json', 4],
    ]);
    expect(r.issues[0].message).toContain(
      'line 3, column 1: not valid JSON (expected a value, found U+000C)',
    );
    expect(r.issues[1].message).toContain(
      'line 4, column 12: not valid JSON (unexpected U+00A0 after the end',
    );
  });
});
