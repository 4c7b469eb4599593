import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { END, renderOptionDocs, START } from '../../src/cli/option-docs.js';
import { commandsTaking, OPTIONS, type OptionName } from '../../src/cli/option-table.js';

const readme = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

describe("the README's option tables", () => {
  it('are the ones the option table makes (run `npm run docs:options` after changing an option)', () => {
    const region = readme.slice(readme.indexOf(START), readme.indexOf(END) + END.length);
    expect(region).toBe(renderOptionDocs());
  });
  it('list every option that is not hidden, and every environment variable', () => {
    const region = renderOptionDocs();
    for (const name of Object.keys(OPTIONS) as OptionName[]) {
      const spec = OPTIONS[name] as { flag: string; env?: string; hidden?: boolean; secret?: boolean };
      if (spec.hidden) continue;
      expect(region).toContain(`\`${spec.flag.split(' ')[0].replace(/,$/, '')}`);
      if (spec.env) expect(region).toContain(`\`${spec.env}\``);
    }
  });
});

describe('which commands an environment variable reaches', () => {
  it("plan takes upload's options, except those it refuses (--rejects, --retry-failed)", () => {
    expect(commandsTaking('apiUrl')).toContain('plan');
    expect(commandsTaking('missingAfter')).toContain('plan');
    expect(commandsTaking('rejects')).not.toContain('plan');
    expect(commandsTaking('retryFailed')).not.toContain('plan');
    expect(commandsTaking('kind')).toEqual(['validate', 'convert', 'upload', 'plan']);
  });
});
