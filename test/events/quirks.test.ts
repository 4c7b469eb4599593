import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkEvent } from '../../src/events/check.js';
import { exampleFor } from '../../src/events/examples.js';
import { fixEventsFile } from '../../src/events/fix-file.js';
import { closestEventType, fixEvent, unknownTypeHint } from '../../src/events/quirks.js';
import { memoryLogger } from '../../src/shared/logger.js';

const at = new Date('2026-11-23T09:00:00Z');
const ex = (type: string) => exampleFor(type, at) as Record<string, any>;

function problemsOf(event: unknown) {
  const check = checkEvent(event);
  expect(check.ok).toBe(false);
  return check.ok ? [] : check.problems;
}

describe('closestEventType', () => {
  it('finds the kind a mistyped type meant, and nothing for a word far from all', () => {
    expect(closestEventType('view_prodcut')).toBe('view_product');
    expect(closestEventType('complate_purchase')).toBe('complete_purchase');
    expect(closestEventType('Add-To-Cart')).toBe('add_to_cart');
    expect(closestEventType('view_search_result')).toBe('search_result');
    expect(closestEventType('refund_issued')).toBeUndefined();
    expect(unknownTypeHint('view_prodcut')).toMatch(
      /^did you mean "view_product"\? the event types are view_product, /,
    );
    expect(unknownTypeHint('refund_issued')).toMatch(/^the event types are /);
  });
});

describe('the contract sample quirks: one named problem each, with did-you-mean and the fix', () => {
  it('specversion 1.0', () => {
    const e = ex('view_product');
    e.specversion = '1.0';
    const problems = problemsOf(e);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ code: 'specversion_1_0', pointer: '/specversion' });
    expect(problems[0].message).toMatch(/did you mean "1\.0\.0"\?.*Fix: "specversion": "1\.0\.0"/);
  });

  it('complate_purchase, and view_prodcut: no second "wrong kind" error', () => {
    const e = ex('complete_purchase');
    e.type = 'complate_purchase';
    expect(problemsOf(e)).toEqual([
      {
        code: 'type_misspelled',
        pointer: '/type',
        message:
          'type "complate_purchase" is not an event type; did you mean "complete_purchase"? Fix: "type": "complete_purchase"',
      },
    ]);
    const v = ex('view_product');
    v.type = 'view_prodcut';
    delete v.id;
    expect(problemsOf(v).map((p) => p.code)).toEqual(['type_misspelled']);
  });

  it('view_search_result', () => {
    const e = ex('search_result');
    e.type = 'view_search_result';
    const problems = problemsOf(e);
    expect(problems.map((p) => p.code)).toEqual(['type_view_search_result']);
    expect(problems[0].message).toMatch(/did you mean "search_result"\?.*\/actions\/search\/result/);
  });

  it('ids with a numeric suffix', () => {
    const e = ex('add_to_wishlist');
    e.id = 'EVT-ADD-TO-WISHLIST-0002';
    const problems = problemsOf(e);
    expect(problems.map((p) => [p.code, p.pointer])).toEqual([['id_numeric_suffix', '/id']]);
    expect(problems[0].message).toMatch(/did you mean "EVT-ADD-TO-WISHLIST"\?/);
  });

  it("keys with a stray apostrophe ('numberOfItems): no second 'missing numberOfItems' error", () => {
    const e = ex('search_result');
    const list = e.data.object;
    list["'numberOfItems"] = list.numberOfItems;
    delete list.numberOfItems;
    const problems = problemsOf(e);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({
      code: 'key_stray_apostrophe',
      pointer: "/data/object/'numberOfItems",
    });
    expect(problems[0].message).toMatch(/did you mean "numberOfItems"\?/);
  });

  it('AddAction in remove_from_cart', () => {
    const e = ex('remove_from_cart');
    e.data['@type'] = 'AddAction';
    const problems = problemsOf(e);
    expect(problems.map((p) => p.code)).toEqual(['cart_remove_add_action']);
    expect(problems[0].message).toMatch(/did you mean "DeleteAction"\?/);
    expect(e.data['@type']).toBe('AddAction'); // checked on a copy
    // AddAction is right where it belongs.
    expect(checkEvent(ex('add_to_cart')).ok).toBe(true);
  });

  it('several quirks in one event are each named, and the fixed event is valid', () => {
    const e = ex('search_result');
    e.specversion = '1.0';
    e.type = 'view_search_result';
    e.id = 'EVT-SEARCH-RESULT1';
    e.data.object["'numberOfItems"] = 2;
    delete e.data.object.numberOfItems;
    const { event, fixes } = fixEvent(e);
    expect(fixes.map((f) => f.code).sort()).toEqual([
      'id_numeric_suffix',
      'key_stray_apostrophe',
      'specversion_1_0',
      'type_view_search_result',
    ]);
    expect(checkEvent(event)).toMatchObject({ ok: true, kind: { type: 'search_result' } });
    expect(event).toEqual(ex('search_result'));
    // The given event is not changed.
    expect(e.specversion).toBe('1.0');
  });

  it('other problems are still reported, after the quirk', () => {
    const e = ex('view_product');
    e.specversion = '1.0';
    delete e.data.object.sku;
    const problems = problemsOf(e);
    expect(problems.map((p) => p.code ?? p.message)).toEqual([
      'specversion_1_0',
      'is missing required member "sku"',
    ]);
  });
});

describe('fixEventsFile', () => {
  const dir = mkdtempSync(join(tmpdir(), 'genser-events-fix-'));
  const settings = { encoding: 'auto' as const };

  it('writes a corrected NDJSON copy and lists each fix with row and line', async () => {
    const a = ex('view_product');
    a.specversion = '1.0';
    const b = ex('complete_purchase');
    b.type = 'complate_purchase';
    const c = ex('add_to_cart');
    const input = join(dir, 'in.ndjson');
    writeFileSync(input, [a, b, c].map((x) => JSON.stringify(x)).join('\n'));
    const output = join(dir, 'out.ndjson');
    const r = await fixEventsFile(input, output, settings, memoryLogger());
    expect(r).toMatchObject({ events: 3, fixedEvents: 2, problems: [], written: true, form: 'ndjson' });
    expect(r.fixes.map((f) => [f.row, f.line, f.code])).toEqual([
      [1, 1, 'specversion_1_0'],
      [2, 2, 'type_misspelled'],
    ]);
    const lines = readFileSync(output, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines).toEqual([ex('view_product'), ex('complete_purchase'), c]);
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('keeps the form: one object stays one object, an array an array', async () => {
    const one = ex('remove_from_cart');
    one.data['@type'] = 'AddAction';
    const input = join(dir, 'one.json');
    writeFileSync(input, JSON.stringify(one, null, 2));
    const r = await fixEventsFile(input, join(dir, 'one-fixed.json'), settings, memoryLogger());
    expect(r).toMatchObject({ form: 'object', fixedEvents: 1, written: true });
    expect(JSON.parse(readFileSync(join(dir, 'one-fixed.json'), 'utf8'))).toEqual(ex('remove_from_cart'));

    const arrayIn = join(dir, 'many.json');
    writeFileSync(arrayIn, JSON.stringify([one, ex('view_product')]));
    const r2 = await fixEventsFile(arrayIn, join(dir, 'many-fixed.json'), settings, memoryLogger());
    expect(r2).toMatchObject({ form: 'array', events: 2, written: true });
    expect(JSON.parse(readFileSync(join(dir, 'many-fixed.json'), 'utf8'))).toEqual([
      ex('remove_from_cart'),
      ex('view_product'),
    ]);
  });

  it('lists what it cannot fix, and writes nothing when a line cannot be read', async () => {
    const bad = ex('view_product');
    delete bad.data.object.sku;
    const input = join(dir, 'broken.ndjson');
    writeFileSync(input, `${JSON.stringify(bad)}\n{"type": \n`);
    const output = join(dir, 'broken-fixed.ndjson');
    const r = await fixEventsFile(input, output, settings, memoryLogger());
    expect(r.written).toBe(false);
    expect(r.problems.map((p) => [p.row, p.code, p.code === 'invalid_event' ? p.message : ''])).toEqual([
      [1, 'invalid_event', 'is missing required member "sku"'],
      [2, 'invalid_json', ''],
    ]);
    expect(readdirSync(dir)).not.toContain('broken-fixed.ndjson');
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
