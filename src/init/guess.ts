import type { FieldSpecJson } from '../map/mapping-file.js';
import { gtinValid } from '../schema/checks.js';
import type { Language } from '../shared/types.js';

/**
 * Guesses which standard field a column feeds: first from its name (English, Korean, Japanese),
 * then from its sample values (URLs, GTINs, currency codes, money, dates). Pure functions.
 */
const key = (s: string) =>
  s
    .trim()
    .toLowerCase()
    .replace(/[\s_\-./()]+/g, '');

/** Normalized column names (see `key`) per target, most specific first. */
const NAMES: Record<string, string[]> = {
  sku: [
    'sku',
    'productcode',
    'itemcode',
    'code',
    'productid',
    'itemid',
    'id',
    '상품코드',
    '상품번호',
    '품번',
    '자체상품코드',
    '商品コード',
    '商品番号',
    '品番',
  ],
  name: ['name', 'title', 'productname', 'itemname', '상품명', '제품명', '품명', '商品名', '品名', '製品名'],
  brand_name: [
    'brand',
    'brandname',
    'vendor',
    'manufacturer',
    'maker',
    '브랜드',
    '브랜드명',
    '제조사',
    'ブランド',
    'ブランド名',
    'メーカー',
  ],
  category_name: [
    'category',
    'categories',
    'categoryname',
    'producttype',
    '카테고리',
    '분류',
    '카테고리명',
    'カテゴリ',
    'カテゴリー',
    'カテゴリ名',
  ],
  description: [
    'description',
    'desc',
    'body',
    'bodyhtml',
    'details',
    '설명',
    '상품설명',
    '상세설명',
    '商品説明',
    '説明',
    '商品詳細',
  ],
  price: [
    'price',
    'saleprice',
    'sellingprice',
    'regularprice',
    'variantprice',
    '가격',
    '판매가',
    '판매가격',
    '価格',
    '販売価格',
    '税込価格',
    '売価',
  ],
  currency: ['currency', 'currencycode', '통화', '화폐', '通貨'],
  availability: [
    'availability',
    'instock',
    'stockstatus',
    '재고상태',
    '품절여부',
    '판매상태',
    '在庫状況',
    '在庫',
  ],
  availability_starts: [
    'availabilitystarts',
    'startdate',
    'salestart',
    'salesstart',
    '판매시작일',
    '판매시작',
    '販売開始日',
    '販売開始',
  ],
  availability_ends: [
    'availabilityends',
    'enddate',
    'saleend',
    'salesend',
    'expirationdate',
    '판매종료일',
    '판매종료',
    '販売終了日',
    '販売終了',
  ],
  gtin: ['gtin', 'ean', 'upc', 'jan', 'barcode', 'isbn', '바코드', 'jan코드', 'janコード', 'バーコード'],
  mpn: ['mpn', 'model', 'modelnumber', 'modelno', 'partnumber', '모델명', '모델번호', '型番', 'モデル番号'],
  image_urls: [
    'image',
    'images',
    'imageurl',
    'imageurls',
    'imagelink',
    'imagesrc',
    '이미지',
    '대표이미지',
    '이미지url',
    '상품이미지',
    '画像',
    '画像url',
    'メイン画像',
    '商品画像',
  ],
  url: [
    'url',
    'link',
    'producturl',
    'productlink',
    '상품url',
    '상품링크',
    '상품주소',
    '商品url',
    '商品ページ',
    'リンク',
  ],
};

const BY_NAME = new Map<string, string>();
for (const [target, names] of Object.entries(NAMES))
  for (const n of names) if (!BY_NAME.has(n)) BY_NAME.set(n, target);

export function targetByName(column: string): string | undefined {
  return BY_NAME.get(key(column));
}

const URL = /^https?:\/\/\S+$/i;
const IMAGE = /\.(jpe?g|png|gif|webp|avif)(\?|$)/i;
const CURRENCIES = new Set(['KRW', 'JPY', 'USD', 'EUR', 'GBP', 'CNY', 'TWD', 'HKD', 'SGD', 'AUD', 'CAD']);
const MONEY =
  /^[₩$€¥£]?\s*\d{1,3}(?:,\d{3})*(?:\.\d{1,2})?\s*(?:원|円|[A-Z]{3})?$|^[₩$€¥£]?\s*\d+\.\d{2}\s*(?:[A-Z]{3})?$/;
const DATE = /^\d{4}[-/.]\d{1,2}[-/.]\d{1,2}(?:[ T]\d{1,2}:\d{2}.*)?$/;
const START_HINT = /start|begin|from|시작|開始/i;
const END_HINT = /end|until|expir|종료|終了/i;

export interface Guess {
  target: string;
  spec?: FieldSpecJson;
  by: 'name' | 'values';
}

/** A number format that reads every sample value (declared, as genser never guesses per row). */
function moneySpec(column: string, values: string[]): FieldSpecJson {
  const spec: FieldSpecJson = { column };
  if (values.some((v) => /\d,\d{3}/.test(v))) spec.thousands = ',';
  if (values.some((v) => /[₩$€¥£원円]|[A-Z]{3}/.test(v))) spec.currencySymbols = true;
  return spec;
}

/** From the sample values alone; undefined when they do not say. */
export function targetByValues(column: string, values: string[]): Guess | undefined {
  const vs = values.map((v) => v.trim()).filter((v) => v !== '');
  if (vs.length === 0) return undefined;
  const all = (re: RegExp) => vs.every((v) => re.test(v));
  if (vs.every((v) => v.split(/[,|]\s*/).every((u) => URL.test(u)))) {
    const images = vs.every((v) => IMAGE.test(v));
    return images
      ? {
          target: 'image_urls',
          spec: { column, split: vs.some((v) => v.includes('|')) ? '|' : ',' },
          by: 'values',
        }
      : { target: 'url', by: 'values' };
  }
  if (vs.every((v) => /^\d{8}$|^\d{12,14}$/.test(v) && gtinValid(v))) return { target: 'gtin', by: 'values' };
  if (vs.every((v) => CURRENCIES.has(v.toUpperCase()))) return { target: 'currency', by: 'values' };
  if (all(DATE)) {
    if (START_HINT.test(column)) return { target: 'availability_starts', by: 'values' };
    if (END_HINT.test(column)) return { target: 'availability_ends', by: 'values' };
    return undefined;
  }
  // Money needs a sign, a unit, grouping or cents: bare integers may be stock counts.
  if (all(MONEY) && vs.some((v) => /[₩$€¥£원円,]|\.\d{2}\b|[A-Z]{3}/.test(v)))
    return { target: 'price', spec: moneySpec(column, vs), by: 'values' };
  return undefined;
}

/** The language most text in the sample is written in. */
export function guessLanguage(texts: string[]): Language {
  let ko = 0;
  let ja = 0;
  for (const t of texts) {
    if (/[\uac00-\ud7a3]/.test(t)) ko++;
    if (/[\u3040-\u30ff]/.test(t) || (/[\u4e00-\u9fff]/.test(t) && !/[\uac00-\ud7a3]/.test(t))) ja++;
  }
  if (ko === 0 && ja === 0) return 'en';
  return ko >= ja ? 'ko' : 'ja';
}

/** A price column named as such still needs its number format declared when values are grouped. */
export function specFor(target: string, column: string, values: string[]): FieldSpecJson | string {
  const vs = values.map((v) => v.trim()).filter((v) => v !== '');
  if (target === 'price' && vs.some((v) => /\d,\d{3}|[₩$€¥£원円]/.test(v))) return moneySpec(column, vs);
  if (target === 'description' && vs.some((v) => /<[a-z][^>]*>/i.test(v))) return { column, stripHtml: true };
  if (target === 'image_urls') return { column, split: vs.some((v) => v.includes('|')) ? '|' : ',' };
  if (target === 'category_name' && vs.some((v) => v.includes('>'))) return { column, split: '>' };
  return column;
}
