import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

describe('what the published package holds', () => {
  // npm pack lists the files without building (--ignore-scripts): what a user installs.
  const listing = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  ) as { files: { path: string }[] }[];
  const packed = new Set(listing[0].files.map((f) => f.path));

  it('ships every docs page that a message, the help or the README names', () => {
    const named = new Set<string>();
    const texts = [...sourceFiles(join(root, 'src')), join(root, 'README.md')].map((f) =>
      readFileSync(f, 'utf8'),
    );
    for (const text of texts) for (const m of text.matchAll(/docs\/[a-z-]+\.md/g)) named.add(m[0]);
    expect(named.size).toBeGreaterThan(3);
    for (const page of named) expect(packed.has(page), `${page} is named but not in the package`).toBe(true);
  });

  it('ships the presets, the schemas and the mapping schema an editor points at', () => {
    for (const preset of ['shopify', 'woocommerce', 'magento', 'google-merchant'])
      expect(packed.has(`presets/${preset}.json`)).toBe(true);
    expect(packed.has('schemas/mapping.schema.json')).toBe(true);
    expect(packed.has('bin/genser.js')).toBe(true);
  });
});
