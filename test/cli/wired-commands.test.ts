import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/index.js';
import { memoryLogger } from '../../src/shared/logger.js';
import { genser } from '../helpers/run-cli.js';

const root = join(import.meta.dirname, '..', '..');
const fixture = (...p: string[]) => join(root, 'fixtures', ...p);

describe('genser config', () => {
  it('shows each setting of a command and where it came from; a key only as "set (FROM)"', async () => {
    const r = await genser(['config', 'upload', '--json'], {
      GENSER_BATCH_SIZE: '7',
      GENSER_API_KEY: 'SENTINEL-key-config-1234',
    });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('SENTINEL-key-config-1234');
    const doc = JSON.parse(r.stdout) as { settings: { name: string; value: unknown; from: string }[] };
    const by = new Map(doc.settings.map((s) => [s.name, s]));
    expect(by.get('batchSize')).toMatchObject({ value: 7, from: 'GENSER_BATCH_SIZE' });
    expect(by.get('concurrency')).toMatchObject({ value: 4, from: 'default' });
    expect(by.get('API key')).toMatchObject({ value: 'set (GENSER_API_KEY)' });
    const unknown = await genser(['config', 'uplaod']);
    expect(unknown.code).toBe(2);
  });
});

describe('genser search', () => {
  it('prints what the sandbox answers for products its batch applied', async () => {
    const sandbox = await startSandbox({ port: 0, instanceKey: 'cli-search-key', log: memoryLogger() });
    try {
      const up = await genser(['upload', fixture('catalog.csv')], {
        GENSER_API_URL: sandbox.url,
        GENSER_API_KEY: sandbox.apiKey,
      });
      expect(up.code, up.stderr).toBe(0);
      await sandbox.runBatch();
      const env = { GENSER_SEARCH_URL: sandbox.url, GENSER_INSTANCE_KEY: 'cli-search-key' };
      const r = await genser(['search', '토트백', '--json'], env);
      expect(r.code, r.stderr).toBe(0);
      const answer = JSON.parse(r.stdout) as {
        type: string;
        requestId: string;
        products: { code: string }[];
      };
      expect(answer.type).toBe('SEARCH');
      expect(answer.products.map((p) => p.code)).toContain('GS-0001');
      const wrong = await genser(['search', 'tote'], { ...env, GENSER_INSTANCE_KEY: 'wrong-key-x' });
      expect(wrong.code).toBe(3);
      expect(wrong.stderr).not.toContain('wrong-key-x');
    } finally {
      await sandbox.close();
    }
  });
});

describe('presets, --set and genser init from the command line', () => {
  it('validates the real Shopify export with --preset shopify, and --set fills what the shop lacks', async () => {
    const feed = fixture('real', 'shopify-product-data.csv');
    const bare = await genser(['validate', feed, '--preset', 'shopify', '--json']);
    const withSet = await genser([
      'validate',
      feed,
      '--preset',
      'shopify',
      '--set',
      'currency=USD',
      '--set',
      'availability_starts=today',
      '--set',
      'availability_ends=+1y',
      '--json',
    ]);
    const codes = (out: string) =>
      (JSON.parse(out) as { issues: { field?: string }[] }).issues.map((i) => i.field ?? '');
    expect(codes(bare.stdout)).toContain('offers.availabilityEnds');
    expect(codes(withSet.stdout)).not.toContain('offers.availabilityEnds');
    expect(codes(withSet.stdout)).not.toContain('offers.priceCurrency');
  });

  it('genser init writes a mapping that validate runs with as it is', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-init-cli-'));
    const out = join(dir, 'genser.mapping.json');
    const init = await genser(['init', fixture('catalog.csv'), '-o', out]);
    expect(init.code, init.stderr).toBe(0);
    expect(existsSync(out)).toBe(true);
    // The catalog's columns are genser's canonical ones: the mapping lets them map themselves.
    expect(JSON.parse(readFileSync(out, 'utf8')).canonicalColumns).toBe(true);
    const again = await genser(['init', fixture('catalog.csv'), '-o', out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('--force');
    const v = await genser(['validate', fixture('catalog.csv'), '--mapping', out]);
    expect(v.code, v.stderr).toBe(0);
  });
});
