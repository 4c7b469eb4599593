import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMAND_DEFS } from '../../src/cli/commands.js';
import { genser } from '../helpers/run-cli.js';

const root = join(import.meta.dirname, '..', '..');
const catalog = join(root, 'fixtures', 'catalog.csv');

describe('what a new user hits', () => {
  it('`genser` alone prints the help on stderr and exits 2', async () => {
    const r = await genser([]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('Usage: genser');
  });

  it("a usage error's hint names the command's own help", async () => {
    const r = await genser(['upload', catalog, '--batchsize', '7']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("hint: run 'genser upload --help'");
    const e = await genser(['events', 'send', 'x.ndjson', '--nope']);
    expect(e.stderr).toContain("hint: run 'genser events send --help'");
  });

  it('never echoes the value of an unknown option (a key typed as --apiKey=...), nor in --json', async () => {
    const r = await genser(['upload', catalog, '--apiKey=SENTINEL-zz9x8c7v', '--json']);
    expect(r.code).toBe(2);
    expect(r.stderr + r.stdout).not.toContain('SENTINEL-zz9x8c7v');
    expect(r.stderr).toContain("unknown option '--apiKey=***'");
    expect(JSON.parse(r.stdout).error.exitCode).toBe(2);
  });

  it('every command and subcommand has examples in its help', async () => {
    for (const def of COMMAND_DEFS) {
      const r = await genser([...def.name.split(' '), '--help']);
      expect(r.code, def.name).toBe(0);
      expect(r.stdout, def.name).toContain('Examples:');
      expect(r.stdout, def.name).toContain(`$ genser ${def.name}`);
    }
  });

  it('--sandbox with an API url says the url is not used', async () => {
    const r = await genser(['upload', catalog, '--sandbox', '--api-url', 'https://api.example.com']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain(
      '--sandbox uploads into an embedded sandbox: the API url https://api.example.com is not used',
    );
  });

  it('convert takes several files like validate and upload', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genser-convert-many-'));
    // The same catalog under other SKUs: 50 distinct products in two files.
    const second = join(dir, 'second.csv');
    // Other SKUs, and other GTINs (the same GTIN on two SKUs is an error): 8800... -> 8810...
    // with the check digit kept valid (the changed digit has weight 1 in a GTIN-13's sum).
    const regtin = (g: string) => `881${g.slice(3, 12)}${(Number(g[12]) + 9) % 10}`;
    writeFileSync(
      second,
      readFileSync(catalog, 'utf8')
        .replaceAll('GS-', 'GT-')
        .replace(/,(8800\d{9}),/g, (_m, g: string) => `,${regtin(g)},`),
    );
    const out = join(dir, 'out.ndjson');
    const r = await genser(['convert', catalog, second, '-o', out]);
    expect(r.code, r.stderr).toBe(0);
    const skus = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l).sku as string);
    expect(skus).toHaveLength(50);
    expect(skus[0]).toBe('GS-0001');
    expect(skus[49]).toBe('GT-0025');
  });

  it('refuses --timeout 0 saying it must be above 0, and a two-character delimiter', async () => {
    const t = await genser(['upload', catalog, '--dry-run', '--timeout', '0']);
    expect(t.code).toBe(2);
    expect(t.stderr).toContain('--timeout must be a number of seconds above 0');
    const d = await genser(['validate', catalog, '--delimiter', 'ab']);
    expect(d.code).toBe(2);
    expect(d.stderr).toContain('--delimiter must be one character');
  });
});
