import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SandboxStore } from '../../src/sandbox/store.js';
import { type Backend, isAvailable, openDatabase } from '../../src/storage/sqlite.js';

const bodies = (store: SandboxStore) =>
  (store.db.prepare('SELECT count(*) AS n FROM bodies').get() as { n: number }).n;

// The same store on both SQLite drivers; one this Node cannot load is skipped (test/storage).
describe.each<Backend>(['node', 'better-sqlite3'])('SandboxStore on %s', (backend) => {
  const available = isAvailable(backend);

  it.runIf(available)(
    'keeps the latest data per SKU, and drops bodies nothing points at after the batch',
    () => {
      const store = new SandboxStore(':memory:', { backend });
      expect(store.db.backend).toBe(backend);
      const send = (items: object[], now: number) =>
        store.transaction(() =>
          store.upsertProducts(
            'legacy',
            JSON.stringify(items),
            '',
            items.map((i) => (i as { code: string }).code),
            items.map(() => null),
            now,
          ),
        );
      send(
        [
          { code: 'A', v: 1 },
          { code: 'B', v: 1 },
        ],
        1,
      );
      send([{ code: 'A', v: 2 }], 2);
      expect(store.getProduct('A')).toMatchObject({
        receivedCount: 2,
        data: { code: 'A', v: 2 },
        applied: null,
      });
      expect(store.getProduct('B')?.data).toEqual({ code: 'B', v: 1 });
      expect(bodies(store)).toBe(2);
      expect(store.runBatch(3, 'ops@example.com', () => ({ subject: 's', body: 'b' }))).toBe(2);
      expect(bodies(store)).toBe(2); // B still points at the first body
      send([{ code: 'B', v: 2 }], 4);
      store.runBatch(5, 'ops@example.com', () => ({ subject: 's', body: 'b' }));
      expect(bodies(store)).toBe(2);
      expect(store.getProduct('B')).toMatchObject({ status: 'applied', applied: { code: 'B', v: 2 } });
      expect(store.getProduct('A')).toMatchObject({ status: 'applied', applied: { code: 'A', v: 2 } });
      store.close();
    },
  );

  it.runIf(available)(
    'stores a body given as UTF-8 bytes as the same text, and keeps a file across restarts',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'genser-store-'));
      try {
        const file = join(dir, 'sandbox.db');
        const store = new SandboxStore(file, { backend });
        const json = JSON.stringify({ '@graph': [{ sku: '가-1', name: '상품' }] });
        store.transaction(() =>
          store.upsertProducts('standard', new TextEncoder().encode(json), '"@graph"', ['가-1'], null, 1),
        );
        store.setMeta('createdAt', '1');
        store.close();
        const again = new SandboxStore(file, { backend });
        expect(again.getProduct('가-1')).toMatchObject({
          format: 'standard',
          data: { sku: '가-1', name: '상품' },
        });
        expect(again.getMeta('createdAt')).toBe('1');
        again.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.runIf(available)('refuses a database file from another schema version with a clear error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-store-'));
    try {
      const file = join(dir, 'old.db');
      const old = openDatabase(file, { backend });
      old.exec('CREATE TABLE products (sku TEXT)');
      old.close();
      expect(() => new SandboxStore(file, { backend })).toThrow(/written by another version of the sandbox/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
