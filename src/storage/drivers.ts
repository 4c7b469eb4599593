import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UsageError } from '../shared/errors.js';

/**
 * The two SQLite drivers genser can run on, loaded only when asked for: Node's built-in
 * `node:sqlite` (Node >= 22.13, no install) and better-sqlite3 (Node 20 only: a clone's `npm ci`
 * builds it through the optional local package `packages/sqlite-node20`; on Node 20 an installed
 * genser needs it installed beside it, since npm cannot gate a registry dependency on the Node
 * version from a published package: README "Install"). Both expose the same synchronous shape,
 * described here by the little of it that src/storage/sqlite.ts uses.
 */
export type Backend = 'node' | 'better-sqlite3';
export type BackendChoice = Backend | 'auto';

export const BACKEND_CHOICES: readonly BackendChoice[] = ['auto', 'node', 'better-sqlite3'];

export interface RawStatement {
  run(...params: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  iterate(...params: unknown[]): IterableIterator<unknown>;
}

export interface RawDatabase {
  exec(sql: string): unknown;
  prepare(sql: string): RawStatement;
  close(): unknown;
}

type Open = (file: string) => RawDatabase;

interface NodeSqlite {
  DatabaseSync: new (file: string) => RawDatabase;
}

const NODE_SQLITE_WARNING = /SQLite is an experimental feature/;

/**
 * `node:sqlite`, or undefined where this Node has none (20, and 22 before 22.13 without a flag).
 * Node 22 prints an ExperimentalWarning when it loads: a user of genser can do nothing about it,
 * so that one warning is dropped while the module loads; every other warning still shows.
 */
function loadNodeSqlite(): NodeSqlite | undefined {
  const emit = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (NODE_SQLITE_WARNING.test(text)) return;
    return (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return process.getBuiltinModule?.('node:sqlite') as NodeSqlite | undefined;
  } catch {
    return undefined;
  } finally {
    process.emitWarning = emit;
  }
}

/** better-sqlite3's constructor, or the reason it cannot be loaded (not installed, built for another Node). */
function loadBetterSqlite3(): { open: Open } | { reason: string } {
  try {
    const Database = createRequire(import.meta.url)(betterSqlite3Module()) as new (
      file: string,
    ) => RawDatabase;
    // Its native part loads at the first open: one built for another Node fails only there.
    new Database(':memory:').close();
    return { open: (file) => new Database(file) };
  } catch (err) {
    const first = String((err as Error).message ?? err).split('\n')[0];
    return { reason: first };
  }
}

/** Where better-sqlite3 is loaded from, for this thread and for another one (./check-aside.ts). */
export function betterSqlite3Module(): string {
  return createRequire(import.meta.url).resolve('better-sqlite3');
}

/** The better-sqlite3 major genser runs on (packages/sqlite-node20 pins the same; a test checks). */
export const BETTER_SQLITE3_MAJOR = '12';

/**
 * The one command that installs better-sqlite3 where this genser finds it, from where genser
 * itself lives: a clone (not under node_modules) gets it from `npm ci`; a project's
 * node_modules (its owner has a package.json) from `npm install`; anything else is a global
 * install. `--allow-scripts` because npm 11 blocks (and warns about) dependency install scripts,
 * and better-sqlite3 compiles at install.
 */
export function betterSqlite3InstallCommand(
  packageRoot: string,
  exists: (path: string) => boolean = existsSync,
): string {
  const parent = dirname(packageRoot);
  const modules = basename(parent).startsWith('@') ? dirname(parent) : parent;
  if (basename(modules) !== 'node_modules') return 'npm ci';
  const project = exists(join(dirname(modules), 'package.json'));
  return `npm install${project ? '' : ' -g'} --allow-scripts=better-sqlite3 better-sqlite3@${BETTER_SQLITE3_MAJOR}`;
}

/** This genser's package directory (dist/storage/ or src/storage/ is two levels down). */
const packageRoot = (): string => fileURLToPath(new URL('../../', import.meta.url));

const installHint = (): string =>
  `on Node 20 run \`${betterSqlite3InstallCommand(packageRoot())}\`, or use Node >= 22.13`;

const cache = new Map<Backend, { open: Open } | { reason: string }>();

function load(backend: Backend): { open: Open } | { reason: string } {
  let found = cache.get(backend);
  if (!found) {
    if (backend === 'node') {
      const sqlite = loadNodeSqlite();
      found = sqlite
        ? { open: (file) => new sqlite.DatabaseSync(file) }
        : { reason: `Node ${process.version} has no node:sqlite (it needs Node >= 22.13)` };
    } else found = loadBetterSqlite3();
    cache.set(backend, found);
  }
  return found;
}

/** Whether `backend` can be used by this process (loads it when it can). */
export function isAvailable(backend: Backend): boolean {
  return 'open' in load(backend);
}

/**
 * The driver to use: the one asked for, or with 'auto' the built-in where this Node has it and
 * better-sqlite3 otherwise (better-sqlite3 12 aborts at exit on Node >= 24.19, so it is never
 * picked where the built-in exists). Throws a UsageError naming what is missing.
 */
export function resolveBackend(choice: BackendChoice = 'auto'): { backend: Backend; open: Open } {
  if (choice !== 'auto') {
    const found = load(choice);
    if ('open' in found) return { backend: choice, open: found.open };
    throw new UsageError(
      `SQLite backend ${choice} is not available: ${found.reason}`,
      choice === 'node'
        ? 'use Node >= 22.13, or the better-sqlite3 backend on Node 20'
        : `${installHint()} and the node backend`,
    );
  }
  const builtIn = load('node');
  if ('open' in builtIn) return { backend: 'node', open: builtIn.open };
  const native = load('better-sqlite3');
  if ('open' in native) return { backend: 'better-sqlite3', open: native.open };
  throw new UsageError(
    `no SQLite backend: ${builtIn.reason}, and better-sqlite3 cannot be loaded (${native.reason})`,
    installHint(),
  );
}

/** A backend choice from text (an environment variable, a config value); undefined means 'auto'. */
export function parseBackendChoice(text: string | undefined): BackendChoice {
  if (text === undefined || text.trim() === '') return 'auto';
  const value = text.trim().toLowerCase();
  if ((BACKEND_CHOICES as readonly string[]).includes(value)) return value as BackendChoice;
  throw new UsageError(
    `unknown SQLite backend '${text}'`,
    `use one of ${BACKEND_CHOICES.join(', ')} (auto: node:sqlite where Node has it, else better-sqlite3)`,
  );
}
