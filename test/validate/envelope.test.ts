import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { envelopeProblems } from '../../src/schema/envelope.js';
import { getValidator } from '../../src/schema/schemas.js';
import { genser } from '../helpers/run-cli.js';

const root = join(import.meta.dirname, '..', '..');
const good = JSON.parse(readFileSync(join(root, 'fixtures', 'envelope.json'), 'utf8')) as Record<
  string,
  unknown
>;
const dir = mkdtempSync(join(tmpdir(), 'genser-envelope-'));

function envelopeFile(name: string, change: (e: Record<string, unknown>) => void): string {
  const e = structuredClone(good);
  change(e);
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(e, null, 2));
  return file;
}

/** What the service (and the sandbox, with the same schema) refuses: each is a 400 there. */
const REFUSED: [string, (e: Record<string, unknown>) => void, RegExp][] = [
  ['no-agent', (e) => delete e.agent, /the envelope has no "agent" .*which the service requires/],
  [
    'context',
    (e) => (e['@context'] = 'http://schema.org'),
    /"@context" must be "https:\/\/schema.org\/"; got "http:\/\/schema.org"/,
  ],
  ['specversion', (e) => (e.specversion = '9.9'), /"specversion" must be "1.0"; got "9.9"/],
  [
    'type',
    (e) => (e.type = 'delete_product'),
    /"type" must be "create_product" or "update_product"; got "delete_product"/,
  ],
  ['agent-name', (e) => (e.agent = { '@type': 'Organization' }), /the envelope's "agent" has no "name"/],
];

describe('a ready standard envelope is validated as a whole', () => {
  it('the fixture envelope is valid for validate and convert', async () => {
    const file = join(root, 'fixtures', 'envelope.json');
    expect((await genser(['validate', file])).code).toBe(0);
    expect((await genser(['convert', file])).code).toBe(0);
  });

  it.each(REFUSED)(
    '%s: refused by validate and convert, as by the service',
    async (name, change, message) => {
      const file = envelopeFile(`${name}.json`, change);
      // The same judgement as the schema the sandbox answers 400 with.
      expect(getValidator('standard-envelope')(JSON.parse(readFileSync(file, 'utf8')))).toBe(false);
      const validate = await genser(['validate', '--json', file]);
      expect(validate.code).toBe(1);
      const report = JSON.parse(validate.stdout) as {
        issues: { code: string; severity: string; message: string }[];
      };
      const issue = report.issues.find((i) => i.code === 'envelope');
      expect(issue?.severity).toBe('error');
      expect(issue?.message).toMatch(message);
      const convert = await genser(['convert', file]);
      expect(convert.code).toBe(1);
      expect(convert.stderr).toMatch(message);
    },
  );

  it('a missing recommended member stays a warning; an unread (oversize) member is not called missing', () => {
    const { '@context': _c, id: _i, ...rest } = good;
    const { '@graph': _g, ...members } = rest;
    expect(envelopeProblems(members)).toEqual([
      expect.objectContaining({ severity: 'warning', code: 'envelope_recommended' }),
    ]);
    const { agent: _a, ...noAgent } = members;
    expect(envelopeProblems({ ...noAgent, '@context': 'https://schema.org/', id: 'x' }, ['agent'])).toEqual(
      [],
    );
  });
});
