import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { allExamples, exampleFor, examplesText } from '../../src/events/examples.js';
import { type EventsForm, readEvents } from '../../src/events/read.js';
import { type CheckedEvent, checkedEvents } from '../../src/events/source.js';
import { memoryLogger } from '../../src/shared/logger.js';
import type { ReadItem } from '../../src/shared/types.js';

const dir = mkdtempSync(join(tmpdir(), 'genser-events-read-'));
const at = new Date('2026-11-23T09:00:00Z');

function write(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

async function read(path: string, stdin?: NodeJS.ReadableStream, inputType?: 'json' | 'ndjson') {
  const items: ReadItem[] = [];
  const seen: { form?: EventsForm } = {};
  for await (const item of readEvents(path, { encoding: 'auto', inputType }, memoryLogger(), stdin, seen))
    items.push(item);
  return { items, form: seen.form };
}

async function checked(path: string): Promise<CheckedEvent[]> {
  const out: CheckedEvent[] = [];
  for await (const c of checkedEvents([path], { encoding: 'auto' }, memoryLogger())) out.push(c);
  return out;
}

describe('readEvents', () => {
  it('reads one pretty-printed event object (what `events example TYPE` prints)', async () => {
    const path = write('one.json', `\n${examplesText('view_product', { now: at })}`);
    const { items, form } = await read(path);
    expect(form).toBe('object');
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({ type: 'record', record: { file: path, row: 1, line: 2 } });
    const c = await checked(path);
    expect(c).toHaveLength(1);
    expect(c[0].kind).toBe('event');
  });

  it('reads a JSON array with rows and lines, and `events example --json` is such an array', async () => {
    const text = examplesText(undefined, { json: true, now: at })!;
    expect(JSON.parse(text)).toHaveLength(11);
    const path = write('all.json', text);
    const { items, form } = await read(path);
    expect(form).toBe('array');
    expect(items.map((i) => (i.type === 'record' ? i.record.row : 0))).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
    ]);
    const c = await checked(path);
    expect(c.filter((x) => x.kind === 'event')).toHaveLength(11);
  });

  it('reads NDJSON, also when it was saved with a .json name', async () => {
    const ndjson = examplesText(undefined, { now: at })!;
    expect(ndjson.trim().split('\n')).toHaveLength(11);
    for (const name of ['all.ndjson', 'lines.json']) {
      const { items, form } = await read(write(name, ndjson));
      expect(form).toBe('ndjson');
      expect(items.filter((i) => i.type === 'record')).toHaveLength(11);
    }
  });

  it('reads a gzipped single event, and one from stdin', async () => {
    const text = JSON.stringify(exampleFor('add_to_cart', at), null, 2);
    const gz = await read(write('one.json.gz', gzipSync(text)));
    expect(gz.items).toMatchObject([{ type: 'record', record: { fields: { type: 'add_to_cart' } } }]);
    const stdin = await read('-', Readable.from([Buffer.from(text)]), 'json');
    expect(stdin.items).toMatchObject([{ type: 'record', record: { file: '<stdin>' } }]);
    const array = await read('-', Readable.from([Buffer.from(JSON.stringify(allExamples(at)))]), 'json');
    expect(array.items.filter((i) => i.type === 'record')).toHaveLength(11);
  });

  it('reads a single event in UTF-16 with a byte order mark', async () => {
    const text = `\uFEFF${JSON.stringify(exampleFor('view_product', at), null, 2)}`;
    const { items, form } = await read(write('utf16.json', Buffer.from(text, 'utf16le')));
    expect(form).toBe('object');
    expect(items).toMatchObject([{ type: 'record', record: { fields: { type: 'view_product' } } }]);
  });

  it('says where a broken single object breaks, and that a product feed is not events', async () => {
    const broken = await read(write('broken.json', '{\n  "type": "view_product",\n  "time": \n}\n'));
    expect(broken.items).toHaveLength(1);
    // Node 20's JSON.parse names no position for this one; later Nodes do (then it is line 4).
    expect(broken.items[0]).toMatchObject({ type: 'issue', issue: { code: 'invalid_json' } });
    if (broken.items[0].type === 'issue')
      expect(broken.items[0].issue.message).toMatch(
        /broken\.json: not valid JSON( at line 4, column 1)? \(Unexpected token/,
      );
    const feed = await read(write('feed.json', JSON.stringify({ agent: {}, '@graph': [] })));
    expect(feed.items[0]).toMatchObject({
      type: 'issue',
      issue: { message: expect.stringMatching(/product feed/) },
    });
  });
});
