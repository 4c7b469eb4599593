import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { genser } from '../helpers/run-cli.js';

const root = join(import.meta.dirname, '..', '..');

describe('flags > env > config file > mapping file > defaults, everywhere', () => {
  const dir = mkdtempSync(join(tmpdir(), 'genser-precedence-'));
  // The catalog's first row, with its local date, under a mapping that says it is a US shop.
  const lines = readFileSync(join(root, 'fixtures', 'catalog.csv'), 'utf8').split('\n');
  const feed = join(dir, 'feed.csv');
  writeFileSync(feed, `${lines[0]}\n${lines[1]}\n`);
  const mapping = join(dir, 'us.json');
  writeFileSync(mapping, JSON.stringify({ format: 'standard', language: 'en', country: 'US', fields: {} }));
  const startsOf = (out: string) => JSON.parse(out.trim().split('\n')[0]).offers.availabilityStarts as string;

  it("a mapping's country applies when nothing else sets one", async () => {
    const r = await genser(['convert', feed, '--mapping', mapping]);
    expect(startsOf(r.stdout), r.stderr).toBe('2026-01-01T05:00:00Z');
  });
  it('--country beats the mapping, and so does GENSER_COUNTRY', async () => {
    const flag = await genser(['convert', feed, '--mapping', mapping, '--country', 'KR']);
    expect(startsOf(flag.stdout), flag.stderr).toBe('2025-12-31T15:00:00Z');
    const env = await genser(['convert', feed, '--mapping', mapping], { GENSER_COUNTRY: 'JP' });
    expect(startsOf(env.stdout), env.stderr).toBe('2025-12-31T15:00:00Z');
  });
  it("a mapping's format applies unless --format says otherwise (then the conflict is named)", async () => {
    const legacy = join(dir, 'legacy.json');
    writeFileSync(legacy, JSON.stringify({ format: 'legacy', fields: { code: 'sku', name: 'name@ko' } }));
    const r = await genser(['validate', feed, '--mapping', legacy, '--json']);
    expect(JSON.parse(r.stdout).format).toBe('legacy');
    const clash = await genser(['validate', feed, '--mapping', legacy, '--format', 'standard']);
    expect(clash.code).toBe(2);
    expect(clash.stderr).toContain('/format is "legacy" but this run is --format standard');
  });
});
