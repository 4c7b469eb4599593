import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
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

describe('the published package, as a user installs it', () => {
  const listing = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  ) as { files: { path: string }[] }[];
  const packed = listing[0].files.map((f) => f.path);
  const has = (path: string) => packed.includes(path) || packed.some((p) => p.startsWith(`${path}/`));
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

  it('every relative link of the README and docs/ points at a file the package holds', () => {
    const pages = ['README.md', ...readdirSync(join(root, 'docs')).map((f) => `docs/${f}`)];
    const broken: string[] = [];
    let links = 0;
    for (const page of pages) {
      expect(has(page), `${page} is not in the package`).toBe(true);
      const text = readFileSync(join(root, page), 'utf8');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1].replace(/#.*$/, '');
        if (target === '' || /^[a-z]+:/.test(target)) continue;
        links++;
        const path = posix.normalize(posix.join(posix.dirname(page), target)).replace(/\/$/, '');
        if (!has(path)) broken.push(`${page} -> ${m[1]}`);
      }
    }
    expect(links).toBeGreaterThan(10);
    expect(broken).toEqual([]);
  });

  it('every repository path the shipped docs name in plain text is in the package', () => {
    // A path is a word that starts with one of the repository's top-level folders (`src/read/`,
    // `.ci/run`) or is one of its top-level files (`tsconfig.json`): command names and flags are
    // not. Pages about the repository itself name its source on purpose, and say so at their top:
    // the module map (src/) and the benchmark harness (bench/), and the README's Development.
    // The checkout's top level as it is on disk (CI's other-Node runs test a copy that is not a
    // git repository), less what is built or installed there (.gitignore).
    const generated = new Set(['.git', 'node_modules', 'dist', 'coverage', 'test-output', 'tmp', '.genser']);
    const top = readdirSync(root, { withFileTypes: true }).filter((e) => !generated.has(e.name));
    const folders = new Set(top.filter((e) => e.isDirectory()).map((e) => e.name));
    const topFiles = new Set(top.filter((e) => e.isFile()).map((e) => e.name));
    const literal = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const pathWord = new RegExp(
      `(?<![\\w/.:@-])((?:${[...folders].map(literal).join('|')})/[\\w./*-]*|(?:${[...topFiles].map(literal).join('|')})(?![\\w/-]))`,
      'g',
    );
    const aboutTheRepository: Record<string, RegExp> = {
      'docs/architecture.md': /^(src(\/|$)|\.dependency-cruiser\.cjs$)/,
      'docs/bench.md': /^bench(\/|$)/,
      'BENCHMARKS.md': /^(bench|src|test|fixtures)(\/|$)/,
    };
    const pages = ['README.md', 'BENCHMARKS.md', ...readdirSync(join(root, 'docs')).map((f) => `docs/${f}`)];
    const unshipped: string[] = [];
    let paths = 0;
    for (const page of pages.filter(has)) {
      let text = readFileSync(join(root, page), 'utf8');
      if (page === 'README.md') text = text.replace(/\n## Development\n[\s\S]*?(?=\n## |$)/, '\n');
      text.split('\n').forEach((line, i) => {
        for (const m of line.matchAll(pathWord)) {
          const path = m[1].replace(/[.,]+$/, '').replace(/\/$/, '');
          paths++;
          if (has(path) || aboutTheRepository[page]?.test(path)) continue;
          unshipped.push(`${page}:${i + 1}: ${m[1]}`);
        }
      });
    }
    expect(paths).toBeGreaterThan(50);
    expect(unshipped).toEqual([]);
  });

  it('holds the LICENSE, the Node 20 SQLite gate, the sample catalog and the schema collection version, and no source maps', () => {
    for (const path of [
      'LICENSE',
      'packages/sqlite-node20/package.json',
      'fixtures/catalog.csv',
      'schemas/events/collection.json',
      'dist/client/genser.js',
    ])
      expect(packed, path).toContain(path);
    expect(packed.filter((p) => p.endsWith('.map'))).toEqual([]);
    expect(packed.filter((p) => p.startsWith('src/') || p.startsWith('test/'))).toEqual([]);
    expect(readFileSync(join(root, 'LICENSE'), 'utf8')).toMatch(/^MIT License\n/);
    expect(manifest.license).toBe('MIT');
  });

  it('runs nothing at install (npm 11 warns of any install script), and declares no peer that npm would install on every Node', () => {
    for (const script of ['preinstall', 'install', 'postinstall', 'prepare'])
      expect(manifest.scripts[script], script).toBeUndefined();
    expect(manifest.scripts.prepack).toBe('npm run build');
    // A root peer (even an optional one) makes a clone's `npm ci` build better-sqlite3 on Node 22
    // and 24 too; Node 20's driver comes only through packages/sqlite-node20 (README "Install").
    expect(manifest.peerDependencies).toBeUndefined();
    expect(manifest.keywords).toContain('genser');
  });
});
