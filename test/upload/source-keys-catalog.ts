import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { expect } from 'vitest';
import { genser } from '../helpers/run-cli.js';
import { json, productsOf, type ScriptedServer, scriptedServer } from './servers.js';

/**
 * What the source-key tests share (source-keys-cli.test.ts, source-keys-state-cli.test.ts): a
 * seeded catalog that changes a little every night, a server on 127.0.0.1 that keeps the last
 * payload it accepted per SKU, and `genser convert` as the oracle of what it should hold.
 */
const root = join(import.meta.dirname, '..', '..');
const bin = join(root, 'bin', 'genser.js');
export const KEY = 'source-keys-test-key-0123';
const dir = mkdtempSync(join(tmpdir(), 'genser-keys-'));
let n = 0;
export const fresh = (name: string) => join(dir, `${name}-${++n}`);

export const COLUMNS = [
  'sku',
  'name@ko',
  'name@en',
  'brand_id',
  'brand_name',
  'category_name@ko',
  'category_code',
  'description@ko',
  'price',
  'currency',
  'availability',
  'availability_starts',
  'availability_ends',
  'gtin',
  'mpn',
  'image_urls',
  'url',
] as const;
export type Column = (typeof COLUMNS)[number];
export type Row = Record<Column, string>;

/** mulberry32: a small seeded generator, so a failing night can be replayed. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An EAN-13 from its first 12 digits (the check digit right, else the row has an error). */
export function gtin(twelve: string): string {
  const sum = [...twelve].reduce((s, d, i) => s + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
  return `${twelve}${(10 - (sum % 10)) % 10}`;
}

const SYLLABLES = [...'가나다라마바사아자차카타파하한글빛솔별달'];
const THINGS = ['가방', '신발', '모자', '셔츠', '바지', '우산', '시계', '지갑'];

/** A catalog that changes a little every night, by a seeded generator. */
export class Catalog {
  readonly rows: Row[] = [];
  columns: readonly Column[] = COLUMNS;
  private next = 1;
  readonly random: () => number;

  constructor(seed: number, count: number) {
    this.random = seeded(seed);
    for (let i = 0; i < count; i++) this.rows.push(this.product());
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)];
  }

  koreanName(): string {
    const word = Array.from({ length: 2 + Math.floor(this.random() * 2) }, () => this.pick(SYLLABLES)).join(
      '',
    );
    return `${word} ${this.pick(THINGS)}`;
  }

  /** A new product; every 13th has no currency, so `--set currency=...` fills it. */
  product(): Row {
    const i = this.next++;
    const sku = `KS-${String(i).padStart(4, '0')}`;
    return {
      sku,
      'name@ko': this.koreanName(),
      'name@en': `Product ${i}`,
      brand_id: `BR-${1 + (i % 4)}`,
      brand_name: this.pick(['소라', '미루', '하늘']),
      'category_name@ko': '가방',
      category_code: 'BAG',
      'description@ko': `${this.pick(THINGS)}: 매일 쓰기 좋은 제품입니다.`,
      price: String(1000 * (5 + Math.floor(this.random() * 90))),
      currency: i % 13 === 0 ? '' : 'KRW',
      availability: this.random() < 0.8 ? 'InStock' : 'OutOfStock',
      availability_starts: '2026-01-01',
      availability_ends: '2027-12-31 23:59:59',
      gtin: gtin(`880000${String(i).padStart(6, '0')}`),
      mpn: `MPN-${i}`,
      image_urls: `https://cdn.example.com/p/${sku}.jpg`,
      url: `https://shop.example.com/p/${sku}`,
    };
  }

  /** Prices changed before, to put back: [row, the price it had]. */
  private readonly repriced: [Row, string][] = [];

  /** A random row (not one of `except`), changed in `what`; its SKU. */
  change(what: 'price' | 'name' | 'availability', except: Set<string>): string {
    let row: Row;
    do row = this.pick(this.rows);
    while (except.has(row.sku));
    if (what === 'price') {
      this.repriced.push([row, row.price]);
      row.price = String(Number(row.price) + 1000 * (1 + Math.floor(this.random() * 9)));
    } else if (what === 'name') row['name@ko'] = `${this.koreanName()} ${row['name@ko']}`;
    else row.availability = row.availability === 'InStock' ? 'OutOfStock' : 'InStock';
    except.add(row.sku);
    return row.sku;
  }

  /**
   * A row given back the price it had before a change (its row text of an earlier night, whose
   * key the state had once): its SKU, if a repriced row is still in the feed.
   */
  revert(except: Set<string>): string | undefined {
    const at = this.repriced.findIndex(([r]) => this.rows.includes(r) && !except.has(r.sku));
    if (at < 0) return undefined;
    const [[row, price]] = this.repriced.splice(at, 1);
    row.price = price;
    except.add(row.sku);
    return row.sku;
  }

  /** The whole file's columns in another order (a name's languages kept in theirs). */
  reorder(): void {
    const order = [...COLUMNS];
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(this.random() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    // A name's languages in another order are another payload (its name array): not this case.
    const ko = order.indexOf('name@ko');
    const en = order.indexOf('name@en');
    if (en < ko) [order[ko], order[en]] = [order[en], order[ko]];
    this.columns = order;
  }

  csv(): string {
    const file = `${fresh('feed')}.csv`;
    const table = [this.columns, ...this.rows.map((r) => this.columns.map((c) => r[c]))];
    writeFileSync(file, `${Papa.unparse(table, { newline: '\n' })}\n`);
    return file;
  }

  /** The same rows as NDJSON, keys in the column order; price a number, images a list. */
  ndjson(): string {
    const file = `${fresh('feed')}.ndjson`;
    const typed = (c: Column, v: string): unknown =>
      c === 'price' ? Number(v) : c === 'image_urls' ? v.split('|') : v;
    const lines = this.rows.map((r) =>
      JSON.stringify(Object.fromEntries(this.columns.map((c) => [c, typed(c, r[c])]))),
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  }
}

/** A server that accepts every product and keeps, per SKU, the last payload (as JSON text). */
export interface Service {
  server: ScriptedServer;
  held: Map<string, string>;
  /** This night's products in order, with their envelope type. */
  night: { sku: string; type: string }[];
}

const running: Service[] = [];

/** Closes the services the test started (its afterEach). */
export async function closeServices(): Promise<void> {
  for (const s of running.splice(0)) await s.server.close();
}

export async function startService(): Promise<Service> {
  const held = new Map<string, string>();
  const night: Service['night'] = [];
  const server = await scriptedServer((req, res) => {
    const type = (JSON.parse(req.body) as { type: string }).type;
    for (const p of productsOf(req.body)) {
      held.set(String(p.sku), JSON.stringify(p));
      night.push({ sku: String(p.sku), type });
    }
    json(res, 200, {});
  });
  const service = { server, held, night };
  running.push(service);
  return service;
}

/** What `genser convert` makes of the feed's valid rows with these flags: payload text per SKU. */
export async function converted(file: string, flags: string[], code = 0): Promise<Map<string, string>> {
  const out = await genser(['convert', file, ...flags]);
  expect(out.code, out.stderr).toBe(code);
  const payloads = new Map<string, string>();
  for (const line of out.stdout.split('\n').filter(Boolean)) {
    const p = JSON.parse(line) as { sku: string };
    payloads.set(p.sku, JSON.stringify(p));
  }
  return payloads;
}

/** How each night's upload runs: in this process, or as `bin/genser.js` (dist, for the threads). */
export type Runner = (
  args: string[],
  env: NodeJS.ProcessEnv,
) => Promise<{ code: number; stderr: string; stdout: string }>;

export const inProcess: Runner = (args, env) => genser(args, env);

export const spawned: Runner = (args, env) =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], {
      env: { PATH: process.env.PATH, NO_COLOR: '1', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += String(c);
    });
    child.stderr.on('data', (c) => {
      stderr += String(c);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
