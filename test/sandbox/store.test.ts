import { describe, expect, it } from 'vitest';
import { SandboxStore } from '../../src/sandbox/store.js';

const bodies = (store: SandboxStore) =>
  (store.db.prepare('SELECT count(*) AS n FROM bodies').get() as { n: number }).n;

describe('SandboxStore', () => {
  it('keeps the latest data per SKU, and drops bodies nothing points at after the batch', () => {
    const store = new SandboxStore();
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
  });

  it('refuses a database file from another schema version with a clear error', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const Database = (await import('better-sqlite3')).default;
    const dir = mkdtempSync(join(tmpdir(), 'genser-store-'));
    try {
      const file = join(dir, 'old.db');
      const old = new Database(file);
      old.exec('CREATE TABLE products (sku TEXT)');
      old.close();
      expect(() => new SandboxStore(file)).toThrow(/written by another version of the sandbox/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
