import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlanDocument } from '../../src/report/plan-report.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { genser } from '../helpers/run-cli.js';
import { catalogCsv, catalogHeader, catalogPrice, catalogSku } from '../helpers/sample-catalog.js';
import { json, productsOf, type ScriptedServer, scriptedServer } from '../upload/servers.js';

/**
 * `genser plan` (docs/nightly.md, "Before and after the run"): what the upload of the same feed
 * would send, sending nothing; the upload then sends exactly that. Against a real server on 127.0.0.1.
 */

const dir = mkdtempSync(join(tmpdir(), 'genser-plan-'));
let n = 0;
const fresh = (name: string) => join(dir, `${name}-${++n}`);
const sku = catalogSku;
const price = catalogPrice;

/** The fixture's rows `keep` (1-based), some with another price, in a file. */
function feed(keep: number[], reprice: Record<number, string> = {}): string {
  const file = `${fresh('feed')}.csv`;
  writeFileSync(file, catalogCsv(keep, reprice));
  return file;
}
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearSecrets();
});

/** Each sent product by its envelope's type, and whether it was marked out of stock. */
function sent(s: ScriptedServer, gone: ReadonlySet<string> = new Set()) {
  const out = { create: [] as string[], update: [] as string[], outOfStock: [] as string[] };
  for (const r of s.requests) {
    const type = (JSON.parse(r.body) as { type: string }).type;
    for (const p of productsOf(r.body)) {
      // Only a known product is marked out of stock (a new one may be out of stock in the feed).
      const offer = p.offers as { availability?: string };
      if (type === 'create_product') out.create.push(p.sku as string);
      else
        (offer.availability === 'OutOfStock' && gone.has(p.sku as string) ? out.outOfStock : out.update).push(
          p.sku as string,
        );
    }
  }
  for (const list of Object.values(out)) list.sort();
  return out;
}

async function target() {
  server = await scriptedServer((_req, res) => json(res, 200, {}));
  return { GENSER_API_URL: server.url, GENSER_API_KEY: 'plan-key-123456', GENSER_STATE_DIR: fresh('state') };
}

describe('genser plan', () => {
  it('says what the upload of the same feed then sends, exactly; sends nothing itself', async () => {
    const env = await target();
    const s = server!;
    expect((await genser(['upload', feed(range(1, 20))], env)).code).toBe(0);
    s.requests.length = 0;

    // Tonight: 21-24 new, 19 and 20 gone, 2 and 3 repriced (3 by -90%), 5 invalid.
    const tonight = feed([...range(1, 18), ...range(21, 24)], {
      2: String(price(2) + 1000),
      3: String(Math.round(price(3) / 10)),
      5: 'not a price',
    });
    const args = [tonight, '--missing', 'out-of-stock'];
    const planned = await genser(['plan', ...args, '--json'], env);
    expect(planned.code, planned.stderr).toBe(1);
    expect(s.requests).toEqual([]);
    const doc = JSON.parse(planned.stdout) as PlanDocument;
    expect(doc).toMatchObject({
      rows: 22,
      known: 20,
      created: 4,
      updated: 2,
      unchanged: 15,
      refused: 1,
      outOfStock: 2,
      alreadyOutOfStock: 0,
      fields: { 'offers.price': 2 },
      guards: { decided: true, tripped: [], onGuard: 'refuse', outcome: 'send' },
      lastCompleteRows: 20,
    });
    expect(doc.largestPriceMoves.map((m) => m.sku)).toEqual([sku(3), sku(2)]);
    expect(doc.largestPriceMoves[0].from).toBe(price(3));
    expect(planned.stdout).not.toContain('plan-key-123456');

    const text = await genser(['plan', ...args], env);
    expect(text.stdout).toContain('  create        4\n  update        2\n  unchanged     15 (not sent)\n');
    expect(text.stdout).toContain('  out of stock  2 (gone from the feed; 0 already out of stock)');
    expect(text.stdout).toContain('fields changed: offers.price 2');
    expect(text.stdout).toContain('guards: none would trip; the upload would send the above');
    expect(s.requests).toEqual([]);

    const ran = await genser(['upload', ...args], env);
    expect(ran.code).toBe(1);
    const got = sent(s, new Set([sku(19), sku(20)]));
    expect(got.create).toEqual(range(21, 24).map(sku).sort());
    expect(got.update).toEqual([sku(2), sku(3)].sort());
    expect(got.outOfStock).toEqual([sku(19), sku(20)].sort());
    expect([got.create.length, got.update.length, got.outOfStock.length]).toEqual([
      doc.created,
      doc.updated,
      doc.outOfStock,
    ]);

    // Planned again: the marks are held by the target now, nothing left to send.
    const after = JSON.parse((await genser(['plan', ...args, '--json'], env)).stdout) as PlanDocument;
    expect(after).toMatchObject({ created: 0, updated: 0, outOfStock: 0, alreadyOutOfStock: 2 });
  });

  it('a truncated feed: the plan and the upload both refuse (exit 6); hold-removals sends the updates only', async () => {
    const env = await target();
    const s = server!;
    expect((await genser(['upload', feed(range(1, 20))], env)).code).toBe(0);
    s.requests.length = 0;
    const truncated = feed(range(1, 9), { 1: String(price(1) + 100) });
    const args = [truncated, '--missing', 'out-of-stock', '--max-change', '100%'];

    const planned = await genser(['plan', ...args, '--json'], env);
    expect(planned.code).toBe(6);
    const doc = JSON.parse(planned.stdout) as PlanDocument;
    expect(doc.guards.outcome).toBe('refuse');
    expect(doc.guards.tripped.map((t) => t.guard)).toEqual(['min-share']);
    expect(doc.guards.tripped[0].message).toBe(
      "the feed has 9 rows, 45% of the last complete run's 20: less than --min-share 50% (10)",
    );

    const refused = await genser(['upload', ...args], env);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain(
      "genser: the feed has 9 rows, 45% of the last complete run's 20: less than --min-share 50% (10): nothing was sent",
    );
    expect(refused.stderr).toContain('--min-share 0');
    expect(s.requests).toEqual([]);

    const heldPlan = JSON.parse(
      (await genser(['plan', ...args, '--on-guard', 'hold-removals', '--json'], env)).stdout,
    ) as PlanDocument;
    expect(heldPlan).toMatchObject({
      updated: 1,
      outOfStock: 0,
      heldBack: 11,
      guards: { outcome: 'hold-removals' },
    });
    const held = await genser(['upload', ...args, '--on-guard', 'hold-removals'], env);
    expect(held.code).toBe(0);
    expect(held.stderr).toContain(
      '--on-guard hold-removals sends the creates and updates and holds back 11 out-of-stock marks',
    );
    expect(sent(s, new Set(range(10, 20).map(sku)))).toEqual({
      create: [],
      update: [sku(1)],
      outOfStock: [],
    });
  });

  it('--missing-after 2: a product is marked out of stock on the second complete run it is missing from', async () => {
    const env = await target();
    const s = server!;
    expect((await genser(['upload', feed(range(1, 10))], env)).code).toBe(0);
    const args = ['--missing', 'out-of-stock', '--missing-after', '2'];
    const night = async (keep: number[]) => {
      s.requests.length = 0;
      const file = feed(keep);
      const doc = JSON.parse((await genser(['plan', file, ...args, '--json'], env)).stdout) as PlanDocument;
      expect((await genser(['upload', file, ...args], env)).code).toBe(0);
      return { doc, marked: sent(s, new Set(range(1, 10).map(sku))).outOfStock };
    };
    // 10 and 9 go missing on different nights; 9 comes back before its second night.
    const one = await night(range(1, 9));
    expect(one.doc).toMatchObject({ outOfStock: 0, waitingMissing: 1 });
    expect(one.marked).toEqual([]);
    const two = await night(range(1, 8));
    expect(two.doc).toMatchObject({ outOfStock: 1, waitingMissing: 1 });
    expect(two.marked).toEqual([sku(10)]);
    const three = await night([...range(1, 8), 9]);
    expect(three.marked).toEqual([]);
    const four = await night(range(1, 8));
    expect(four.doc).toMatchObject({ outOfStock: 0, alreadyOutOfStock: 1, waitingMissing: 1 });
    expect(four.marked).toEqual([]);
  });

  it('an empty feed trips --min-rows; a plan needs a target', async () => {
    const env = await target();
    expect((await genser(['upload', feed(range(1, 5))], env)).code).toBe(0);
    const empty = `${fresh('empty')}.csv`;
    writeFileSync(empty, `${catalogHeader.join(',')}\n`);
    const refused = await genser(['upload', empty, '--min-share', '0'], env);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain(
      'genser: the feed has 0 rows, fewer than --min-rows 1: nothing was sent',
    );
    const noTarget = await genser(['plan', empty], { GENSER_STATE_DIR: env.GENSER_STATE_DIR });
    expect(noTarget.code).toBe(2);
    expect(noTarget.stderr).toContain('no product API url');
    const noState = await genser(['plan', empty, '--sandbox']);
    expect(noState.code).toBe(2);
    expect(noState.stderr).toContain('--sandbox keeps none without --state');
    expect(noState.stderr).not.toContain('started an embedded sandbox');
  });
});
