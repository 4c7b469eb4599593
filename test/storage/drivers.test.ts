import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BETTER_SQLITE3_MAJOR, betterSqlite3InstallCommand } from '../../src/storage/drivers.js';

/** The one command a Node 20 user without better-sqlite3 is told to run, from where genser lives. */
describe('betterSqlite3InstallCommand', () => {
  const only =
    (...paths: string[]) =>
    (path: string) =>
      paths.includes(path);

  it('a clone (not under node_modules) gets it from npm ci', () => {
    expect(betterSqlite3InstallCommand('/home/me/genser', only('/home/me/genser/package.json'))).toBe(
      'npm ci',
    );
  });

  it('a project dependency: npm install in that project', () => {
    expect(betterSqlite3InstallCommand('/srv/shop/node_modules/genser', only('/srv/shop/package.json'))).toBe(
      'npm install --allow-scripts=better-sqlite3 better-sqlite3@12',
    );
    expect(
      betterSqlite3InstallCommand('/srv/shop/node_modules/@acme/genser', only('/srv/shop/package.json')),
    ).toBe('npm install --allow-scripts=better-sqlite3 better-sqlite3@12');
  });

  it('a global install (no package.json above node_modules): npm install -g', () => {
    expect(betterSqlite3InstallCommand('/usr/local/lib/node_modules/genser', only())).toBe(
      'npm install -g --allow-scripts=better-sqlite3 better-sqlite3@12',
    );
  });

  it('names the major packages/sqlite-node20 installs in a clone', () => {
    const gate = JSON.parse(
      readFileSync(join(import.meta.dirname, '../../packages/sqlite-node20/package.json'), 'utf8'),
    );
    expect(gate.dependencies['better-sqlite3']).toMatch(new RegExp(`^\\^${BETTER_SQLITE3_MAJOR}\\.`));
  });
});
