import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlanDocument } from '../../src/report/plan-report.js';
import { clearSecrets } from '../../src/shared/secrets.js';
import { genser } from '../helpers/run-cli.js';
import { catalogHeader, catalogRows } from '../helpers/sample-catalog.js';
import { json, type ScriptedServer, scriptedServer } from '../upload/servers.js';

/**
 * Mapping drift (docs/nightly.md, "Before and after the run"): a column mapped in the last complete
 * run and absent tonight is named; with --strict the run is refused before anything is sent (exit 6).
 */

const dir = mkdtempSync(join(tmpdir(), 'genser-drift-'));
let n = 0;
const header = catalogHeader;
const sample = catalogRows;

/** The catalog without the columns `drop` (renamed columns: `rename`). */
function feed(drop: string[] = [], rename: Record<string, string> = {}): string {
  const keep = header.map((h, i) => (drop.includes(h) ? -1 : i)).filter((i) => i >= 0);
  const rows = [keep.map((i) => rename[header[i]] ?? header[i]), ...sample.map((r) => keep.map((i) => r[i]))];
  const file = join(dir, `feed-${++n}.csv`);
  writeFileSync(file, `${Papa.unparse(rows, { newline: '\n' })}\n`);
  return file;
}

let server: ScriptedServer;
afterEach(async () => {
  await server.close();
  clearSecrets();
});

describe('mapping drift', () => {
  it('--strict refuses (exit 6, nothing sent); plan shows it; without --strict a warning, and the next run compares with tonight', async () => {
    server = await scriptedServer((_req, res) => json(res, 200, {}));
    const env = {
      GENSER_API_URL: server.url,
      GENSER_API_KEY: 'drift-key-123456',
      GENSER_STATE_DIR: join(dir, 'state'),
      // Dropping a column changes every product: the mass-change guard is not what is tested here.
      GENSER_MAX_CHANGE: '100%',
    };
    expect((await genser(['upload', feed()], env)).code).toBe(0);
    server.requests.length = 0;
    // Tonight's export lost seo_title and renamed description@en (a name the canonical ones do not know).
    const tonight = feed(['seo_title'], { 'description@en': 'Description (EN)' });

    const refused = await genser(['upload', tonight, '--strict'], env);
    expect(refused.code).toBe(6);
    expect(refused.stderr).toContain(
      'genser: columns "description@en", "seo_title" were mapped in the last complete run and are absent from tonight\'s feed (--strict): nothing was sent',
    );
    expect(refused.stderr).toContain('run again without --strict');
    expect(server.requests).toEqual([]);

    const planned = await genser(['plan', tonight, '--strict', '--json'], env);
    expect(planned.code).toBe(6);
    const doc = JSON.parse(planned.stdout) as PlanDocument;
    expect(doc.absentColumns).toEqual(['description@en', 'seo_title']);
    expect(doc.guards.tripped.map((t) => t.guard)).toEqual(['strict']);
    const text = await genser(['plan', tonight], env);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      'mapping: "description@en", "seo_title" mapped in the last complete run, absent from this feed',
    );

    const warned = await genser(['upload', tonight], env);
    expect(warned.code, warned.stderr).toBe(0);
    expect(warned.stderr).toContain(
      'mapping: columns "description@en", "seo_title" were mapped in the last complete run and are absent from tonight\'s feed: the fields they fed are left out',
    );
    expect(server.requests.length).toBeGreaterThan(0);
    // That run was complete: tonight's columns are the ones compared with now.
    const again = await genser(['upload', tonight, '--strict'], env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toContain('mapping:');
  });

  it('with every guard off (no pass before sending), the drift is said at the end', async () => {
    server = await scriptedServer((_req, res) => json(res, 200, {}));
    const env = {
      GENSER_API_URL: server.url,
      GENSER_API_KEY: 'drift-key-654321',
      GENSER_STATE_DIR: join(dir, 'state-off'),
    };
    const off = ['--min-rows', '0', '--min-share', '0', '--max-change', '100%', '--price-shock', 'off'];
    expect((await genser(['upload', feed(), ...off], env)).code).toBe(0);
    const r = await genser(['upload', feed(['seo_title']), ...off], env);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      'mapping: column "seo_title" was mapped in the last complete run and is absent',
    );
  });
});
