import type { SearchProduct } from '../client/search-answer.js';
import { isObject } from '../shared/is-object.js';
import { guessLanguage, isWordTerm, type Language, normalize, terms } from './search-text.js';

/** A product of the answer, with the score the sandbox always gives. */
export type SearchHit = SearchProduct & { score: number };

/**
 * The sandbox's search: an inverted index over the products the daily batch applied (standard
 * and legacy), matched over names, brands and categories in every language they carry, ranked by
 * BM25's idf of each matched term times the weight of the best field it matched in. A query word
 * of a spaced script also matches longer words it begins (bag -> bags) at half weight.
 */
/** A product as indexed: what the answer shows of it (its name in every language), and the texts searched. */
export interface IndexedProduct extends Omit<SearchProduct, 'name' | 'score'> {
  format: 'standard' | 'legacy';
  /** Name per language; `''` for text without a language. */
  names: Partial<Record<Language | '', string>>;
  /** The texts searched, by field. */
  fields: { name: string[]; brand: string[]; category: string[] };
}

const WEIGHTS = { name: 3, brand: 2, category: 1.5 } as const;
type Field = keyof typeof WEIGHTS;
const PREFIX_FACTOR = 0.5;

/** Texts of a JSON-LD text value: a string, `{@value, @language}`, or an array of them. */
function texts(value: unknown): { text: string; language: string }[] {
  if (typeof value === 'string') return [{ text: value, language: '' }];
  if (Array.isArray(value)) return value.flatMap(texts);
  if (isObject(value) && typeof value['@value'] === 'string')
    return [
      { text: value['@value'], language: typeof value['@language'] === 'string' ? value['@language'] : '' },
    ];
  return [];
}

const firstText = (value: unknown) => texts(value)[0]?.text;

function fromStandard(sku: string, data: Record<string, unknown>): IndexedProduct {
  const names: IndexedProduct['names'] = {};
  const nameTexts = texts(data.name);
  for (const t of nameTexts) names[t.language as Language] ??= t.text;
  const brand = isObject(data.brand) ? texts(data.brand.name) : [];
  const categories = (Array.isArray(data.category) ? data.category : [data.category]).flatMap((c) =>
    isObject(c) ? texts(c.name) : [],
  );
  const offers = isObject(data.offers) ? data.offers : {};
  const image = Array.isArray(offers.image) ? offers.image[0] : offers.image;
  return {
    format: 'standard',
    code: sku,
    names,
    brand: brand[0]?.text,
    price: typeof offers.price === 'number' ? offers.price : undefined,
    currency: typeof offers.priceCurrency === 'string' ? offers.priceCurrency : undefined,
    // An ImageObject, or its URL alone (schemas/standard-product.schema.json, $defs/image).
    image:
      typeof image === 'string'
        ? image
        : isObject(image) && typeof image.contentUrl === 'string'
          ? image.contentUrl
          : undefined,
    url: firstText(data.url),
    inStock: typeof offers.availability === 'string' ? offers.availability !== 'OutOfStock' : undefined,
    fields: {
      name: nameTexts.map((t) => t.text),
      brand: brand.map((t) => t.text),
      category: categories.map((t) => t.text),
    },
  };
}

const CATEGORY_LEVELS = ['largeName', 'mediumName', 'smallName'];

function fromLegacy(code: string, data: Record<string, unknown>): IndexedProduct {
  const language = typeof data.languageCode === 'string' ? data.languageCode.slice(0, 2).toLowerCase() : '';
  const name = typeof data.name === 'string' ? data.name : '';
  const brand = isObject(data.brand) && typeof data.brand.name === 'string' ? data.brand.name : undefined;
  const categories = (Array.isArray(data.categories) ? data.categories : []).flatMap((c) =>
    isObject(c) ? CATEGORY_LEVELS.map((k) => c[k]).filter((v): v is string => typeof v === 'string') : [],
  );
  const price = isObject(data.priceInfo) ? data.priceInfo : {};
  const image = isObject(data.image) ? data.image : {};
  const shown = typeof price.salePrice === 'number' ? price.salePrice : price.price;
  return {
    format: 'legacy',
    code,
    names: { [language]: name },
    brand,
    price: typeof shown === 'number' ? shown : undefined,
    currency: typeof price.currency === 'string' ? price.currency : undefined,
    image: typeof image.mainUrl === 'string' ? image.mainUrl : undefined,
    url: typeof image.productUrl === 'string' ? image.productUrl : undefined,
    inStock: typeof data.isInStock === 'boolean' ? data.isInStock : undefined,
    fields: { name: [name], brand: brand ? [brand] : [], category: categories },
  };
}

/** A stored product's applied data as the search sees it; undefined for what is not a product. */
export function toIndexed(format: string, code: string, data: unknown): IndexedProduct | undefined {
  if (!isObject(data)) return undefined;
  if (format === 'standard') return fromStandard(code, data);
  if (format === 'legacy') return fromLegacy(code, data);
  return undefined;
}

/** The name to show: the asked (or guessed) language, then ko, en, ja, then any. */
function pickName(p: IndexedProduct, language: string | undefined): string {
  for (const l of [language, 'ko', 'en', 'ja', ''])
    if (l !== undefined && p.names[l as Language]) return p.names[l as Language]!;
  return Object.values(p.names).find((n) => n) ?? p.code;
}

export class SearchIndex {
  private readonly products: IndexedProduct[] = [];
  /** term -> (product index -> best field weight). */
  private readonly postings = new Map<string, Map<number, number>>();
  /** Word terms (spaced scripts), for prefix matches. */
  private wordTerms: string[] = [];

  constructor(products: Iterable<IndexedProduct>) {
    for (const p of products) {
      const i = this.products.push(p) - 1;
      for (const field of Object.keys(WEIGHTS) as Field[])
        for (const text of p.fields[field])
          for (const term of terms(text)) {
            let list = this.postings.get(term);
            if (!list) {
              list = new Map();
              this.postings.set(term, list);
            }
            if ((list.get(i) ?? 0) < WEIGHTS[field]) list.set(i, WEIGHTS[field]);
          }
    }
    this.wordTerms = [...this.postings.keys()].filter(isWordTerm);
  }

  get size(): number {
    return this.products.length;
  }

  private idf(docs: number): number {
    const n = this.products.length;
    return Math.log(1 + (n - docs + 0.5) / (docs + 0.5));
  }

  /**
   * `legacyStock`: the current isInStock of legacy products, which applies at once (between
   * batches), while the index holds what the last batch applied.
   */
  search(
    query: string,
    options: { language?: string; limit: number; legacyStock?: (codes: string[]) => Map<string, boolean> },
  ): { total: number; hits: SearchHit[] } {
    const scores = new Map<number, number>();
    const matched = new Map<number, number>();
    const queryTerms = [...new Set(terms(query))];
    for (const term of queryTerms) {
      // Per product, the best of the exact match and the prefix matches of this query term.
      const best = new Map<number, number>();
      const add = (found: string, factor: number) => {
        const list = this.postings.get(found);
        if (!list) return;
        const idf = this.idf(list.size);
        for (const [i, weight] of list) best.set(i, Math.max(best.get(i) ?? 0, idf * weight * factor));
      };
      add(term, 1);
      if (isWordTerm(term) && term.length >= 2)
        for (const longer of this.wordTerms)
          if (longer !== term && longer.startsWith(term)) add(longer, PREFIX_FACTOR);
      for (const [i, s] of best) {
        scores.set(i, (scores.get(i) ?? 0) + s);
        matched.set(i, (matched.get(i) ?? 0) + 1);
      }
    }
    // A product that matches only some of the query's terms (one bigram of three) ranks lower.
    for (const [i, s] of scores) scores.set(i, (s * matched.get(i)!) / queryTerms.length);
    // The whole query inside a name (in order, as typed) ranks above scattered matches.
    const phrase = normalize(query).trim();
    if (phrase)
      for (const i of scores.keys())
        if (this.products[i].fields.name.some((n) => normalize(n).includes(phrase)))
          scores.set(i, scores.get(i)! * 1.5);

    const language = options.language ?? guessLanguage(query);
    const ranked = [...scores].sort(
      (a, b) => b[1] - a[1] || (this.products[a[0]].code < this.products[b[0]].code ? -1 : 1),
    );
    const hits = ranked.slice(0, options.limit).map(([i, score]) => {
      const p = this.products[i];
      const hit: SearchHit = {
        code: p.code,
        name: pickName(p, language),
        score: Math.round(score * 1000) / 1000,
      };
      for (const k of ['brand', 'price', 'currency', 'image', 'url', 'inStock'] as const)
        if (p[k] !== undefined) (hit as unknown as Record<string, unknown>)[k] = p[k];
      return hit;
    });
    const legacy = ranked.slice(0, options.limit).filter(([i]) => this.products[i].format === 'legacy');
    if (legacy.length && options.legacyStock) {
      const stock = options.legacyStock(legacy.map(([i]) => this.products[i].code));
      for (const hit of hits) {
        const now = stock.get(hit.code);
        if (now !== undefined) hit.inStock = now;
      }
    }
    return { total: ranked.length, hits };
  }
}
