import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exampleFor } from '../../src/events/examples.js';
import { genser } from '../helpers/run-cli.js';

describe('genser events validate --fix -o FILE', () => {
  it("writes a corrected copy of the contract sample's quirks, which then validates", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-events-fix-'));
    const quirky = { ...exampleFor('complete_purchase'), type: 'complate_purchase' };
    const input = join(dir, 'events.ndjson');
    writeFileSync(input, `${JSON.stringify(quirky)}\n${JSON.stringify(exampleFor('view_product'))}\n`);
    const plain = await genser(['events', 'validate', input]);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('did you mean');
    const out = join(dir, 'fixed.ndjson');
    const fix = await genser(['events', 'validate', input, '--fix', '-o', out]);
    expect(fix.code, fix.stderr).toBe(0);
    expect(fix.stderr).toMatch(/wrote .*fixed\.ndjson: 2 events, 1 event fixed/);
    expect(JSON.parse(readFileSync(out, 'utf8').split('\n')[0]).type).toBe('complete_purchase');
    const again = await genser(['events', 'validate', out]);
    expect(again.code, again.stderr).toBe(0);
    const noOut = await genser(['events', 'validate', input, '--fix']);
    expect(noOut.code).toBe(2);
    expect(noOut.stderr).toContain('--fix needs -o FILE');
  });

  it('events example --json prints one document: the eleven kinds as an array', async () => {
    const r = await genser(['events', 'example', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toHaveLength(11);
  });
});
