#!/usr/bin/env node
// Deterministic generator of realistic product catalogs for the benchmark (issue 5).
//
//   node bench/generate.mjs --rows 100000 [--rows 1000000] [--shape long|short] [--seed 42] [--out FILE] [--force]
//
// Two shapes. `long` (the default, about 1.6 KB a row, 29 columns) writes CSV in the canonical standard columns of docs/architecture.md section 6: Korean, English and
// Japanese text, quoted fields holding commas, quotes and newlines, long HTML descriptions,
// `|`-separated lists, valid EAN-13 check digits (a GTIN per row, none twice). One row in INVALID_EVERY carries a known
// defect so validation has errors to report. Rows are streamed to disk in blocks (memory does
// not grow with --rows). `short` (issue 12: about 330 bytes a row) writes the 17 canonical
// columns of SHORT_COLUMNS (every field the schema requires) with Korean text, quoted commas and line breaks in some fields and the
// same defect rows. Rows are streamed to disk in blocks (memory does
// not grow with --rows); the file is written under a temporary name and renamed when complete,
// and a `<file>.meta.json` sidecar records what it holds, so a catalog is reused only when whole.

import { createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bump when the generated content changes, so stale catalogs are regenerated. */
export const GENERATOR_VERSION = 2;
export const DEFAULT_SEED = 20261123;
export const DATA_DIR = join(dirname(fileURLToPath(import.meta.url)), 'data');

/** One row in this many is invalid (row numbers INVALID_OFFSET, INVALID_OFFSET + INVALID_EVERY, ...). */
export const INVALID_EVERY = 1000;
export const INVALID_OFFSET = 500;
/** The defects, in rotation: each is an error genser must report with row and column. */
export const INVALID_KINDS = ['price', 'availability', 'availability_starts'];

export const COLUMNS = [
  'sku',
  'offer_sku',
  'name@ko',
  'name@en',
  'name@ja',
  'brand_id',
  'brand_name@ko',
  'brand_name@en',
  'brand_name@ja',
  'category_name@ko',
  'category_name@en',
  'category_name@ja',
  'category_code',
  'description@ko',
  'description@en',
  'description@ja',
  'price',
  'currency',
  'availability',
  'availability_starts',
  'availability_ends',
  'gtin',
  'mpn',
  'image_urls',
  'url',
  'seo_title',
  'html',
  'hs_code',
  'sustainability_tags',
];

/** The short-row catalog's columns (issue 12): 17 canonical standard columns. */
export const SHORT_COLUMNS = [
  'sku',
  'name@ko',
  'name@en',
  'brand_id',
  'brand_name@ko',
  'category_name@ko',
  'category_code',
  'description@ko',
  'price',
  'currency',
  'availability',
  'availability_starts',
  'gtin',
  'mpn',
  'image_urls',
  'url',
  'availability_ends',
];

export const SHAPES = ['long', 'short'];

/** The columns of a catalog shape. */
export function columnsOf(shape = 'long') {
  if (shape === 'long') return COLUMNS;
  if (shape === 'short') return SHORT_COLUMNS;
  throw new Error(`shape must be one of ${SHAPES.join(', ')}, got ${shape}`);
}

// --- seeded randomness (mulberry32: small, fast, good enough for test data) -----------------

export function createRandom(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (min, max) => min + Math.floor(next() * (max - min + 1));
  const pick = (list) => list[Math.floor(next() * list.length)];
  return { next, int, pick };
}

// --- vocabulary --------------------------------------------------------------------------------

const KO_ADJ = [
  '프리미엄',
  '오가닉',
  '슬림핏',
  '캐주얼',
  '가벼운',
  '따뜻한',
  '방수',
  '무선',
  '고급',
  '친환경',
  '빈티지',
  '클래식',
  '데일리',
  '부드러운',
  '초경량',
  '대용량',
];
const KO_NOUN = [
  '면 티셔츠',
  '니트 스웨터',
  '울 코트',
  '데님 자켓',
  '원피스',
  '운동화',
  '스니커즈',
  '백팩',
  '토트백',
  '블루투스 이어폰',
  '노트북 파우치',
  '수분 크림',
  '비타민 세럼',
  '선크림',
  '마스크팩',
  '텀블러',
  '머그컵',
  '캠핑 의자',
  '요가 매트',
  '가습기',
];
const KO_SENT = [
  '매일 입기 좋은 편안한 착용감을 제공합니다',
  '세탁 후에도 형태가 잘 유지됩니다',
  '국내 공장에서 꼼꼼하게 생산했습니다',
  '민감한 피부에도 자극이 적습니다',
  '선물용으로 인기가 많은 상품입니다',
  '가볍고 튼튼해서 여행에 알맞습니다',
  '사이즈는 정사이즈로 주문하시면 됩니다',
  '색상은 모니터에 따라 다르게 보일 수 있습니다',
  '재고 소진 시 배송이 지연될 수 있습니다',
  '100% 재활용 소재로 만들었습니다',
];
const JA_ADJ = [
  'プレミアム',
  'オーガニック',
  'スリム',
  'カジュアル',
  '軽量',
  '暖かい',
  '防水',
  'ワイヤレス',
  '高級',
  'エコ',
  'ヴィンテージ',
  'クラシック',
  'デイリー',
  'やわらか',
];
const JA_NOUN = [
  'コットンTシャツ',
  'ニットセーター',
  'ウールコート',
  'デニムジャケット',
  'ワンピース',
  'スニーカー',
  'リュック',
  'トートバッグ',
  'ワイヤレスイヤホン',
  '保湿クリーム',
  '美容液',
  '日焼け止め',
  'タンブラー',
  'マグカップ',
  'ヨガマット',
  '加湿器',
];
const JA_SENT = [
  '毎日着やすい快適な着心地です',
  '洗濯後も形が崩れにくい素材を使用しています',
  '国内工場で丁寧に生産しました',
  '敏感肌の方にもおすすめです',
  'ギフトとしても人気の商品です',
  '軽くて丈夫なので旅行にも最適です',
  '色味はモニターにより異なる場合があります',
  '在庫切れの場合は発送が遅れることがあります',
];
const EN_ADJ = [
  'Premium',
  'Organic',
  'Slim-fit',
  'Casual',
  'Lightweight',
  'Warm',
  'Waterproof',
  'Wireless',
  'Deluxe',
  'Eco',
  'Vintage',
  'Classic',
  'Everyday',
  'Soft',
];
const EN_NOUN = [
  'Cotton T-Shirt',
  'Knit Sweater',
  'Wool Coat',
  'Denim Jacket',
  'Dress',
  'Sneakers',
  'Backpack',
  'Tote Bag',
  'Bluetooth Earbuds',
  'Laptop Sleeve',
  'Moisturizing Cream',
  'Vitamin Serum',
  'Sunscreen',
  'Tumbler',
  'Mug',
  'Yoga Mat',
  'Humidifier',
];
const EN_SENT = [
  'Comfortable enough to wear every day, and easy to care for.',
  'Keeps its shape after washing; tumble dry low.',
  'Made with care in a local factory, checked piece by piece.',
  'Gentle on sensitive skin, dermatologist tested.',
  'A popular gift, wrapped on request.',
  'Light, sturdy and "travel ready", it fits in any bag.',
  'Colours may look different depending on your screen.',
  'Shipping may be delayed when stock runs out.',
];
const BRANDS = [
  ['한결', 'Hangyeol', 'ハンギョル'],
  ['누리', 'Nuri', 'ヌリ'],
  ['소담', 'Sodam', 'ソダム'],
  ['가온', 'Gaon', 'ガオン'],
  ['다솜', 'Dasom', 'ダソム'],
  ['미르', 'Mir', 'ミル'],
  ['아라', 'Ara', 'アラ'],
  ['하늘', 'Haneul', 'ハヌル'],
];
const CATEGORIES = [
  ['의류', 'Clothing', '衣類', '100'],
  ['상의', 'Tops', 'トップス', '100100'],
  ['아우터', 'Outerwear', 'アウター', '100200'],
  ['신발', 'Shoes', '靴', '200'],
  ['가방', 'Bags', 'バッグ', '300'],
  ['전자기기', 'Electronics', '電子機器', '400'],
  ['뷰티', 'Beauty', 'ビューティー', '500'],
  ['스킨케어', 'Skincare', 'スキンケア', '500100'],
  ['생활용품', 'Home', '生活用品', '600'],
  ['캠핑', 'Camping', 'キャンプ', '700'],
];
const TAGS = ['recycled', 'organic', 'vegan', 'fair-trade', 'low-carbon', 'plastic-free'];
const HS_CODES = ['6109.10', '6110.20', '6201.93', '6404.11', '4202.92', '8518.30', '3304.99', '9617.00'];
const SPEC_KEYS = ['소재', '원산지', '제조사', '사이즈', '색상', '세탁방법', '품질보증기준', 'A/S 책임자'];
const SPEC_VALUES = [
  '면 100%',
  '대한민국',
  '(주)한결산업',
  'S, M, L, XL',
  '블랙/화이트',
  '손세탁 권장',
  '구입일로부터 1년',
];

// --- value builders ----------------------------------------------------------------------------

/**
 * Row n's GTIN: unique in the catalog (random ones collided about 5 times in 100k rows, and a
 * duplicate GTIN is a refused row), with the random draw still taken so the columns after it
 * keep their values.
 */
function uniqueEan13(rnd, n) {
  rnd.int(0, 999999999);
  return ean13(`88${pad(n % 10_000_000_000, 10)}`);
}

/** EAN-13 with a correct check digit (GS1 mod-10, weights 1/3 from the left). */
export function ean13(body12) {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += (body12.charCodeAt(i) - 48) * (i % 2 === 0 ? 1 : 3);
  return body12 + ((10 - (sum % 10)) % 10);
}

export function isValidEan13(code) {
  return /^\d{13}$/.test(code) && ean13(code.slice(0, 12)) === code;
}

/** RFC 4180 quoting: only when the value needs it. */
export function csvField(value) {
  if (value === '') return '';
  if (/[",\r\n]/.test(value)) return `"${value.replaceAll('"', '""')}"`;
  return value;
}

function sentences(rnd, pool, min, max, joiner) {
  const n = rnd.int(min, max);
  const out = [];
  for (let i = 0; i < n; i++) out.push(rnd.pick(pool));
  return out.join(joiner);
}

function pad(n, width) {
  return String(n).padStart(width, '0');
}

function isoDate(rnd, year) {
  return `${year}-${pad(rnd.int(1, 12), 2)}-${pad(rnd.int(1, 28), 2)}`;
}

function html(rnd, long) {
  const parts = ['<div class="detail">'];
  parts.push(`<h2>${rnd.pick(KO_ADJ)} ${rnd.pick(KO_NOUN)}</h2>`);
  const paras = long ? rnd.int(6, 12) : rnd.int(1, 3);
  for (let i = 0; i < paras; i++) {
    parts.push(`<p>${sentences(rnd, KO_SENT, 2, 4, ', ')}.</p>`);
  }
  if (long) {
    parts.push('<table class="spec">');
    for (let i = 0; i < SPEC_KEYS.length; i++) {
      parts.push(`<tr><th>${SPEC_KEYS[i]}</th><td>${rnd.pick(SPEC_VALUES)}</td></tr>`);
    }
    parts.push('</table>');
    const images = rnd.int(2, 5);
    for (let i = 0; i < images; i++) {
      parts.push(
        `<img src="https://cdn.example.com/detail/${rnd.int(10000, 99999)}.jpg" alt="상세 이미지 ${i + 1}">`,
      );
    }
  }
  parts.push('</div>');
  // Exports from shop back-ends keep the template's line breaks.
  return parts.join('\n');
}

/**
 * Returns `row(n) -> string[]` (one value per COLUMNS entry) for data rows numbered from 1.
 * Rows must be asked for in order: the values come from one seeded sequence.
 */
export function createRowGenerator(seed = DEFAULT_SEED) {
  const rnd = createRandom(seed);
  return function row(n) {
    const sku = `SKU-${pad(n, 8)}`;
    const brand = rnd.pick(BRANDS);
    const brandId = `BR-${pad(BRANDS.indexOf(brand) + 1, 3)}`;
    const cats = [rnd.pick(CATEGORIES)];
    if (rnd.next() < 0.5) cats.push(rnd.pick(CATEGORIES));
    const koAdj = rnd.pick(KO_ADJ);
    const koNoun = rnd.pick(KO_NOUN);
    const enIndex = rnd.int(0, EN_NOUN.length - 1);
    const currency = rnd.next() < 0.8 ? 'KRW' : rnd.next() < 0.5 ? 'JPY' : 'USD';
    let price =
      currency === 'KRW'
        ? String(rnd.int(9, 1500) * 100)
        : currency === 'JPY'
          ? String(rnd.int(5, 900) * 10)
          : `${rnd.int(5, 400)}.${pad(rnd.int(0, 99), 2)}`;
    const availRoll = rnd.next();
    let availability =
      availRoll < 0.7
        ? 'InStock'
        : availRoll < 0.8
          ? 'in stock'
          : availRoll < 0.93
            ? 'OutOfStock'
            : 'PreOrder';
    const year = rnd.int(2025, 2026);
    let starts = rnd.next() < 0.5 ? isoDate(rnd, year) : `${isoDate(rnd, year)}T09:00:00+09:00`;
    const ends = `${isoDate(rnd, year + 2)}T23:59:59Z`;
    const images = [];
    const imageCount = rnd.int(1, 4);
    for (let i = 0; i < imageCount; i++) images.push(`https://cdn.example.com/p/${sku}/${i + 1}.jpg`);
    const tags = [];
    if (rnd.next() < 0.4) tags.push(rnd.pick(TAGS));
    if (rnd.next() < 0.2) tags.push(rnd.pick(TAGS));

    if (n % INVALID_EVERY === INVALID_OFFSET) {
      const kind = INVALID_KINDS[Math.floor(n / INVALID_EVERY) % INVALID_KINDS.length];
      if (kind === 'price') price = '12,900원';
      else if (kind === 'availability') availability = 'ask the shop';
      else starts = `${year}-13-45`;
    }

    return [
      sku,
      rnd.next() < 0.1 ? `${sku}-OPT` : '',
      `${brand[0]} ${koAdj} ${koNoun}`,
      `${brand[1]} ${rnd.pick(EN_ADJ)} ${EN_NOUN[enIndex]}`,
      `${brand[2]} ${rnd.pick(JA_ADJ)}${rnd.pick(JA_NOUN)}`,
      brandId,
      brand[0],
      brand[1],
      brand[2],
      cats.map((c) => c[0]).join('|'),
      cats.map((c) => c[1]).join('|'),
      cats.map((c) => c[2]).join('|'),
      cats.map((c) => c[3]).join('|'),
      sentences(rnd, KO_SENT, 2, 6, rnd.next() < 0.3 ? '.\n' : '. ') + '.',
      sentences(rnd, EN_SENT, 1, 4, ' '),
      sentences(rnd, JA_SENT, 1, 4, '。') + '。',
      price,
      currency,
      availability,
      starts,
      ends,
      uniqueEan13(rnd, n),
      `MPN-${brandId.slice(3)}-${pad(rnd.int(0, 99999), 5)}`,
      images.join('|'),
      `https://shop.example.com/products/${sku}`,
      `${koAdj} ${koNoun} | ${brand[0]} 공식몰`,
      html(rnd, rnd.next() < 0.15),
      rnd.pick(HS_CODES),
      tags.join('|'),
    ];
  };
}

/**
 * The short-row generator (issue 12): `row(n) -> string[]` in SHORT_COLUMNS order, about 330 bytes
 * a row once quoted. Same seeded sequence rules and the same defect rows as createRowGenerator.
 */
export function createShortRowGenerator(seed = DEFAULT_SEED) {
  const rnd = createRandom(seed);
  return function row(n) {
    const sku = `SKU-${pad(n, 8)}`;
    const brand = rnd.pick(BRANDS);
    const brandId = `BR-${pad(BRANDS.indexOf(brand) + 1, 3)}`;
    const cats = [rnd.pick(CATEGORIES)];
    if (rnd.next() < 0.2) cats.push(rnd.pick(CATEGORIES));
    const koAdj = rnd.pick(KO_ADJ);
    const koNoun = rnd.pick(KO_NOUN);
    const currency = rnd.next() < 0.8 ? 'KRW' : 'USD';
    let price =
      currency === 'KRW' ? String(rnd.int(9, 1500) * 100) : `${rnd.int(5, 400)}.${pad(rnd.int(0, 99), 2)}`;
    const availRoll = rnd.next();
    let availability = availRoll < 0.75 ? 'InStock' : availRoll < 0.85 ? 'in stock' : 'OutOfStock';
    const year = rnd.int(2025, 2026);
    let starts = rnd.next() < 0.7 ? isoDate(rnd, year) : `${isoDate(rnd, year)}T09:00:00+09:00`;
    // The schema requires an end (offers.availabilityEnds), so this column is in; hs_code is not.
    const ends = isoDate(rnd, year + 2);
    const images = [];
    const imageCount = rnd.next() < 0.25 ? 2 : 1;
    for (let i = 0; i < imageCount; i++) images.push(`https://img.example.com/${sku}-${i + 1}.jpg`);
    // Some names hold a quoted comma; some descriptions a line break, so both kinds of quoting occur.
    const nameKo =
      rnd.next() < 0.2
        ? `${brand[0]} ${koAdj} ${koNoun}, ${rnd.pick(KO_ADJ)}`
        : `${brand[0]} ${koAdj} ${koNoun}`;
    const roll = rnd.next();
    const description =
      roll < 0.15
        ? `${rnd.pick(KO_SENT)}.\n${rnd.pick(KO_SENT)}.`
        : roll < 0.3
          ? `${rnd.pick(KO_SENT)}, ${rnd.pick(KO_SENT)}.`
          : `${rnd.pick(KO_SENT)}.`;

    if (n % INVALID_EVERY === INVALID_OFFSET) {
      const kind = INVALID_KINDS[Math.floor(n / INVALID_EVERY) % INVALID_KINDS.length];
      if (kind === 'price') price = '12,900원';
      else if (kind === 'availability') availability = 'ask the shop';
      else starts = `${year}-13-45`;
    }

    return [
      sku,
      nameKo,
      `${brand[1]} ${rnd.pick(EN_ADJ)} ${rnd.pick(EN_NOUN)}`,
      brandId,
      brand[0],
      cats.map((c) => c[0]).join('|'),
      cats.map((c) => c[3]).join('|'),
      description,
      price,
      currency,
      availability,
      starts,
      uniqueEan13(rnd, n),
      `MPN-${brandId.slice(3)}-${pad(rnd.int(0, 99999), 5)}`,
      images.join('|'),
      `https://shop.example.com/p/${sku}`,
      ends,
    ];
  };
}

export function isInvalidRow(n) {
  return n % INVALID_EVERY === INVALID_OFFSET;
}

export function invalidCount(rows) {
  return rows < INVALID_OFFSET ? 0 : Math.floor((rows - INVALID_OFFSET) / INVALID_EVERY) + 1;
}

// --- writing -----------------------------------------------------------------------------------

const BLOCK_ROWS = 2000;

/**
 * Streams `rows` data rows (plus the header) to `file`. Resolves with the sidecar metadata.
 * The file appears under its final name only once complete.
 */
export async function writeCatalog(file, { rows, seed = DEFAULT_SEED, shape = 'long' } = {}) {
  if (!Number.isInteger(rows) || rows < 0)
    throw new Error(`rows must be a non-negative integer, got ${rows}`);
  const columns = columnsOf(shape);
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.partial`;
  const out = createWriteStream(tmp);
  const done = new Promise((ok, fail) => {
    out.on('finish', ok);
    out.on('error', fail);
  });
  const row = shape === 'short' ? createShortRowGenerator(seed) : createRowGenerator(seed);
  let bytes = 0;
  const write = async (text) => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await new Promise((ok) => out.once('drain', ok));
  };
  await write(`${columns.join(',')}\r\n`);
  let lines = [];
  for (let n = 1; n <= rows; n++) {
    const values = row(n);
    for (let i = 0; i < values.length; i++) values[i] = csvField(values[i]);
    lines.push(values.join(','));
    if (lines.length === BLOCK_ROWS || n === rows) {
      await write(`${lines.join('\r\n')}\r\n`);
      lines = [];
    }
  }
  out.end();
  await done;
  renameSync(tmp, file);
  const meta = {
    generatorVersion: GENERATOR_VERSION,
    seed,
    shape,
    rows,
    invalidRows: invalidCount(rows),
    invalidEvery: INVALID_EVERY,
    columns: columns.length,
    bytes,
  };
  writeFileSync(`${file}.meta.json`, `${JSON.stringify(meta, null, 2)}\n`);
  return meta;
}

/** `catalog-N.csv` for the long shape (the name it always had), `catalog-short-N.csv` for short rows. */
export function catalogPath(rows, dir = DATA_DIR, shape = 'long') {
  columnsOf(shape);
  return join(dir, shape === 'long' ? `catalog-${rows}.csv` : `catalog-${shape}-${rows}.csv`);
}

/**
 * Reads the sidecar of a complete catalog written by this generator version, seed and shape, else
 * null. Sidecars from before the short shape have no `shape`: they are long catalogs.
 */
export function readCatalogMeta(file, seed = DEFAULT_SEED, shape = 'long') {
  const metaFile = `${file}.meta.json`;
  if (!existsSync(file) || !existsSync(metaFile)) return null;
  try {
    const meta = JSON.parse(readFileSync(metaFile, 'utf8'));
    return meta.generatorVersion === GENERATOR_VERSION &&
      meta.seed === seed &&
      (meta.shape ?? 'long') === shape
      ? meta
      : null;
  } catch {
    return null;
  }
}

/** The catalog of `rows` rows under `dir`, generated unless a complete matching one is there. */
export async function ensureCatalog(
  rows,
  { dir = DATA_DIR, seed = DEFAULT_SEED, shape = 'long', force = false, log } = {},
) {
  const file = catalogPath(rows, dir, shape);
  const existing = force ? null : readCatalogMeta(file, seed, shape);
  if (existing && existing.rows === rows) return { file, meta: existing, generated: false };
  log?.(`generating ${rows} ${shape} rows -> ${file}`);
  const meta = await writeCatalog(file, { rows, seed, shape });
  return { file, meta, generated: true };
}

// --- command line ------------------------------------------------------------------------------

function parseArgs(argv) {
  const opts = { rows: [], seed: DEFAULT_SEED, shape: 'long', out: undefined, force: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--rows') opts.rows.push(Number(value().replaceAll('_', '')));
    else if (arg === '--seed') opts.seed = Number(value());
    else if (arg === '--shape') opts.shape = value();
    else if (arg === '--out') opts.out = value();
    else if (arg === '--force') opts.force = true;
    else if (arg === '--help' || arg === '-h') opts.help = true;
    else throw new Error(`unknown argument ${arg}`);
  }
  if (opts.rows.length === 0) opts.rows = [100_000, 1_000_000];
  for (const r of opts.rows)
    if (!Number.isInteger(r) || r < 0) throw new Error(`--rows: not a row count: ${r}`);
  if (opts.out && opts.rows.length > 1) throw new Error('--out takes a single --rows');
  if (!SHAPES.includes(opts.shape))
    throw new Error(`--shape: one of ${SHAPES.join(', ')}, got ${opts.shape}`);
  return opts;
}

async function cli(argv) {
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (err) {
    process.stderr.write(`generate: ${err.message}\nhint: node bench/generate.mjs --help\n`);
    return 2;
  }
  if (opts.help) {
    process.stdout.write(
      'usage: node bench/generate.mjs [--rows N]... [--shape long|short] [--seed S] [--out FILE] [--force]\n' +
        `  default: --rows 100000 --rows 1000000 --shape long into ${DATA_DIR} (reused when complete)\n` +
        '  --shape short: about 330-byte rows in 17 columns (catalog-short-N.csv)\n',
    );
    return 0;
  }
  for (const rows of opts.rows) {
    const started = process.hrtime.bigint();
    const { file, meta, generated } = opts.out
      ? {
          file: resolve(opts.out),
          meta: await writeCatalog(resolve(opts.out), { rows, seed: opts.seed, shape: opts.shape }),
          generated: true,
        }
      : await ensureCatalog(rows, { seed: opts.seed, shape: opts.shape, force: opts.force });
    const secs = Number(process.hrtime.bigint() - started) / 1e9;
    process.stderr.write(
      `${generated ? 'wrote' : 'reused'} ${file}: ${meta.rows} rows, ${meta.invalidRows} invalid, ` +
        `${(meta.bytes / 1048576).toFixed(1)} MiB${generated ? ` in ${secs.toFixed(1)} s` : ''}\n`,
    );
  }
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await cli(process.argv.slice(2));
}
