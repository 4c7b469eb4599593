import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { clearSecrets } from '../../src/shared/secrets.js';
import { genser } from '../helpers/run-cli.js';
import { json, type ScriptedServer, scriptedServer } from './servers.js';

/**
 * A password in `--api-url http://user:pass@host` is a secret as keys are: never in the output,
 * the JSON and HTML reports, or the run history.
 */
const root = join(import.meta.dirname, '..', '..');
const FEED = join(root, 'fixtures', 'catalog.csv');
const dir = mkdtempSync(join(tmpdir(), 'genser-urlpw-'));

let server: ScriptedServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
  clearSecrets();
});

describe('a password in the API url', () => {
  it('is masked in stdout, stderr, the JSON and HTML reports and the run history', async () => {
    server = await scriptedServer((_req, res) => json(res, 200, {}));
    const password = 'pw-Secret9';
    const apiUrl = server.url.replace('http://', `http://genser:${password}@`);
    const env = { GENSER_API_KEY: 'urlpw-key-0123456789', GENSER_STATE_DIR: join(dir, 'state') };
    const report = join(dir, 'report.json');
    const html = join(dir, 'report.html');
    const run = await genser(
      ['upload', FEED, '--api-url', apiUrl, '--json', '--report', report, '--reporter', `html=${html}`],
      env,
    );
    expect(run.code).toBe(0);
    expect(server.requests).toHaveLength(1);
    const history = await genser(['runs', '--json'], env);
    const id = (JSON.parse(history.stdout) as { runs: { id: string }[] }[])[0].runs[0].id;
    const shown = await genser(['runs', 'show', id, '--json'], env);
    expect(shown.code).toBe(0);
    const texts = {
      stdout: run.stdout,
      stderr: run.stderr,
      report: readFileSync(report, 'utf8'),
      html: readFileSync(html, 'utf8'),
      history: shown.stdout,
    };
    // The target is still named, with the password masked.
    expect(texts.report).toContain('http://***@127.0.0.1');
    for (const [where, text] of Object.entries(texts)) {
      expect({ where, leaked: text.includes(password) }).toEqual({ where, leaked: false });
    }
  });
});
