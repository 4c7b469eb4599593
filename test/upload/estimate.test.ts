import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { countLines } from '../../src/upload/estimate.js';

const dir = mkdtempSync(join(tmpdir(), 'genser-lock-'));

describe('line count for the ETA', () => {
  it('counts physical lines of one file; unknown for stdin or several files', async () => {
    const file = join(dir, 'x.csv');
    writeFileSync(file, 'sku,name\nA,"1\n2"\nB,2\nC,3');
    expect(await countLines([file])).toBe(5);
    expect(await countLines(['-'])).toBeUndefined();
    expect(await countLines([file, file])).toBeUndefined();
  });
});
