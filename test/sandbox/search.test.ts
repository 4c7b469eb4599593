import { describe, expect, it } from 'vitest';
import { type IndexedProduct, SearchIndex, toIndexed } from '../../src/sandbox/search-index.js';
import { guessLanguage, terms } from '../../src/sandbox/search-text.js';
import { envelope, legacyProduct, postLegacy, postStandard, product, start } from './helpers.js';

const names = (ko: string, en: string, ja?: string) => [
  { '@value': ko, '@language': 'ko' },
  { '@value': en, '@language': 'en' },
  ...(ja ? [{ '@value': ja, '@language': 'ja' }] : []),
];

const misc = [{ '@type': 'CategoryCode', name: names('기타', 'Misc'), codeValue: 'M' }];

function indexOf(products: [string, Record<string, unknown>][]): SearchIndex {
  return new SearchIndex(
    products.map(([sku, o]) => toIndexed('standard', sku, product(sku, { category: misc, ...o }))!),
  );
}

const codes = (index: SearchIndex, q: string, language?: string) =>
  index.search(q, { limit: 20, language }).hits.map((h) => h.code);

describe('search terms', () => {
  it('keeps spaced words whole and splits Hangul, kana and kanji runs into bigrams', () => {
    expect(terms('Leather Tote-Bag')).toEqual(['leather', 'tote', 'bag']);
    expect(terms('가죽 토트백')).toEqual(['가죽', '토트', '트백']);
    expect(terms('レザートートバッグ')).toEqual([
      'レザ',
      'ザー',
      'ート',
      'トー',
      'ート',
      'トバ',
      'バッ',
      'ッグ',
    ]);
    expect(terms('二つ折り財布')).toEqual(['二つ', 'つ折', '折り', 'り財', '財布']);
    expect(terms('백')).toEqual(['백']);
    // NFKC: full-width Latin and half-width kana become their usual forms.
    expect(terms('ＢＡＧ ﾊﾞｯｸﾞ')).toEqual(['bag', 'バッ', 'ッグ']);
    expect(terms('나이키air')).toEqual(['나이', '이키', 'air']);
  });

  it('guesses the language from the script', () => {
    expect(guessLanguage('가방')).toBe('ko');
    expect(guessLanguage('バッグ')).toBe('ja');
    expect(guessLanguage('財布')).toBe('ja');
    expect(guessLanguage('bag')).toBe('en');
    expect(guessLanguage('123')).toBeUndefined();
  });
});

describe('search index', () => {
  const index = indexOf([
    ['T-1', { name: names('가죽 토트백', 'Leather Tote Bag', 'レザートートバッグ') }],
    ['B-2', { name: names('캔버스 백팩', 'Canvas Backpack', 'キャンバスバックパック') }],
    ['W-3', { name: names('반지갑', 'Bifold Wallet', '二つ折り財布') }],
    [
      'S-4',
      {
        name: names('러닝화', 'Running Shoes'),
        brand: { '@type': 'Brand', '@id': 'B-9', name: { '@value': '소라', '@language': 'ko' } },
        category: [{ '@type': 'CategoryCode', name: names('신발', 'Shoes'), codeValue: 'SH' }],
      },
    ],
    ['M-5', { name: names('모바일 배터리', 'Mobile Battery', 'モバイルバッテリー') }],
    ['X-6', { name: names('양말', 'Shoes Socks Set') }],
  ]);

  it('finds Korean words inside longer names by bigrams', () => {
    expect(codes(index, '토트백')).toEqual(['T-1']);
    expect(codes(index, '지갑')).toEqual(['W-3']);
  });

  it('finds Japanese names by bigrams and ranks the fuller match first', () => {
    const hits = codes(index, 'バッグ');
    expect(hits[0]).toBe('T-1');
    // Battery shares one bigram (バッ) of two: found, but below the bag.
    expect(hits).toContain('M-5');
    expect(hits.indexOf('M-5')).toBeGreaterThan(0);
    expect(codes(index, '財布')).toEqual(['W-3']);
  });

  it('matches English words, and a word as the prefix of a longer one', () => {
    expect(codes(index, 'wallet')).toEqual(['W-3']);
    expect(codes(index, 'wal')).toEqual(['W-3']);
    expect(codes(index, 'leather bag')[0]).toBe('T-1');
    expect(codes(index, 'nothing-like-this')).toEqual([]);
  });

  it('matches brands and categories, below names', () => {
    expect(codes(index, '소라')).toEqual(['S-4']);
    expect(codes(index, '신발')).toEqual(['S-4']);
    // X-6 has 'shoes' in its name, S-4 in its name and category: both found, the name decides,
    // so their order is by the name weight alone (equal), then by code.
    expect(codes(index, 'shoes')).toEqual(['S-4', 'X-6']);
    // The same word (same idf) in a name outweighs it in a category.
    const pair = new SearchIndex([
      toIndexed('standard', 'N', product('N', { name: 'Sport Cap', category: misc }))!,
      toIndexed(
        'standard',
        'C',
        product('C', { name: 'Cap', category: [{ '@type': 'CategoryCode', name: 'Sport', codeValue: 'S' }] }),
      )!,
    ]);
    const [first, second] = pair.search('sport', { limit: 2 }).hits;
    expect([first.code, second.code]).toEqual(['N', 'C']);
    // Name weight 3 and the whole query inside the name (x1.5), against category weight 1.5.
    expect(first.score / second.score).toBeCloseTo((3 * 1.5) / 1.5);
  });

  it('shows the name in the asked or guessed language', () => {
    expect(index.search('토트백', { limit: 1 }).hits[0].name).toBe('가죽 토트백');
    expect(index.search('tote', { limit: 1 }).hits[0].name).toBe('Leather Tote Bag');
    expect(index.search('tote', { limit: 1, language: 'ja' }).hits[0].name).toBe('レザートートバッグ');
  });

  it('ranks by score, ties by code, and counts all matches beyond the limit', () => {
    const many = new SearchIndex(
      ['C', 'A', 'B'].map((sku) => toIndexed('standard', sku, product(sku, { name: names('가방', 'Bag') }))!),
    );
    const r = many.search('bag', { limit: 2 });
    expect(r.total).toBe(3);
    expect(r.hits.map((h) => h.code)).toEqual(['A', 'B']);
  });

  it('reads legacy products (name, brand, category levels, sale price)', () => {
    const p = toIndexed(
      'legacy',
      'L-1',
      legacyProduct('L-1', {
        name: '여름 샌들',
        categories: [{ largeCode: 'L', largeName: '신발', mediumName: '샌들' }],
      }),
    ) as IndexedProduct;
    const legacy = new SearchIndex([p]);
    const hit = legacy.search('샌들', { limit: 5 }).hits[0];
    expect(hit).toMatchObject({
      code: 'L-1',
      name: '여름 샌들',
      brand: 'Brand',
      price: 900,
      currency: 'KRW',
    });
    expect(codes(legacy, '신발')).toEqual(['L-1']);
    expect(toIndexed('legacy-filter', 'x', { name: 'x' })).toBeUndefined();
  });
});

const INSTANCE = 'test-instance-key-0123';

async function post(url: string, path: string, body: unknown, contentType = 'application/json') {
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': contentType, origin: 'http://shop.example' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

describe('sandbox search backend', () => {
  async function withCatalog() {
    const sandbox = await start({ instanceKey: INSTANCE });
    const products = [
      product('K-1', { name: names('가죽 토트백', 'Leather Tote Bag', 'レザートートバッグ') }),
      product('K-2', { name: names('캔버스 백팩', 'Canvas Backpack') }),
    ];
    expect((await postStandard(sandbox.url, envelope(products))).status).toBe(200);
    expect((await postLegacy(sandbox.url, [legacyProduct('L-9', { name: '토트백 파우치' })])).status).toBe(
      200,
    );
    return sandbox;
  }

  it('answers over what the batch applied, with a fresh requestId per answer', async () => {
    const sandbox = await withCatalog();
    try {
      const before = await post(sandbox.url, '/client/search', {
        instanceKey: INSTANCE,
        queryText: '토트백',
      });
      expect(before.status).toBe(200);
      expect(before.json()).toMatchObject({ type: 'SEARCH', total: 0, products: [] });
      await sandbox.runBatch();
      const a = await post(sandbox.url, '/client/search', { instanceKey: INSTANCE, queryText: '토트백' });
      const b = await post(sandbox.url, '/client/search', { instanceKey: INSTANCE, queryText: '토트백' });
      expect(a.headers.get('access-control-allow-origin')).toBe('*');
      const answer = a.json();
      expect(answer.type).toBe('SEARCH');
      expect(answer.queryText).toBe('토트백');
      expect(answer.products.map((p: { code: string }) => p.code).sort()).toEqual(['K-1', 'L-9']);
      expect(answer.products[0]).toMatchObject({ code: expect.any(String), name: expect.any(String) });
      expect(answer.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(b.json().requestId).not.toBe(answer.requestId);
      // text/plain bodies (a page avoiding the preflight) are read the same way.
      const plain = await post(
        sandbox.url,
        '/client/search',
        { instanceKey: INSTANCE, queryText: 'tote' },
        'text/plain',
      );
      expect(plain.json().products[0]).toMatchObject({ code: 'K-1', name: 'Leather Tote Bag' });
    } finally {
      await sandbox.close();
    }
  });

  it('refuses a missing or wrong instanceKey with 401 that never echoes it, and bad fields with 400', async () => {
    const sandbox = await withCatalog();
    try {
      const wrong = await post(sandbox.url, '/client/search', { instanceKey: 'guess-me-42', queryText: 'x' });
      expect(wrong.status).toBe(401);
      expect(wrong.headers.get('content-type')).toMatch(/problem\+json/);
      expect(wrong.text).not.toContain('guess-me-42');
      expect(wrong.text).not.toContain(INSTANCE);
      expect(wrong.headers.get('access-control-allow-origin')).toBe('*');
      expect((await post(sandbox.url, '/client/search', { queryText: 'x' })).status).toBe(401);
      const noQuery = await post(sandbox.url, '/client/search', { instanceKey: INSTANCE });
      expect(noQuery.status).toBe(400);
      expect(noQuery.json().errors[0].pointer).toBe('/queryText');
      expect(
        (await post(sandbox.url, '/client/search', { instanceKey: INSTANCE, queryText: 'x', limit: 0 }))
          .status,
      ).toBe(400);
      expect((await post(sandbox.url, '/client/search', '{oops')).status).toBe(400);
      expect((await post(sandbox.url, '/client/search', '{}', 'application/xml')).status).toBe(415);
      expect((await fetch(`${sandbox.url}/client/search`)).status).toBe(405);
      expect((await post(sandbox.url, '/client/nope', {})).status).toBe(404);
    } finally {
      await sandbox.close();
    }
  });

  it('answers the CORS preflight', async () => {
    const sandbox = await start({ instanceKey: INSTANCE });
    try {
      const res = await fetch(`${sandbox.url}/client/search`, {
        method: 'OPTIONS',
        headers: {
          origin: 'http://shop.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
      expect(res.headers.get('access-control-allow-headers')).toContain('content-type');
    } finally {
      await sandbox.close();
    }
  });

  it('stores DI and CL with their requestId, marks an unknown one, and refuses a wrong key', async () => {
    const sandbox = await withCatalog();
    try {
      await sandbox.runBatch();
      const { requestId } = (
        await post(sandbox.url, '/client/search', { instanceKey: INSTANCE, queryText: 'tote' })
      ).json();
      const goods = [{ code: 'K-1', name: 'Leather Tote Bag' }];
      const di = await post(
        sandbox.url,
        '/client/di',
        { name: 'DI', instance: { key: INSTANCE }, goods, requestId },
        'text/plain;charset=UTF-8',
      );
      expect(di.status).toBe(204);
      expect(di.headers.get('access-control-allow-origin')).toBe('*');
      expect(
        (
          await post(sandbox.url, '/client/cl', {
            name: 'CL',
            instance: { key: INSTANCE },
            goods,
            requestId: 'made-up',
          })
        ).status,
      ).toBe(204);
      // Refused: wrong key, two clicked items, no requestId, a DI body on the CL path.
      expect(
        (await post(sandbox.url, '/client/cl', { instance: { key: 'nope' }, goods, requestId })).status,
      ).toBe(401);
      expect(
        (
          await post(sandbox.url, '/client/cl', {
            instance: { key: INSTANCE },
            goods: [...goods, ...goods],
            requestId,
          })
        ).status,
      ).toBe(400);
      expect((await post(sandbox.url, '/client/di', { instance: { key: INSTANCE }, goods })).status).toBe(
        400,
      );
      expect(
        (await post(sandbox.url, '/client/cl', { name: 'DI', instance: { key: INSTANCE }, goods, requestId }))
          .status,
      ).toBe(400);
      expect(
        (
          await post(sandbox.url, '/client/di', {
            instance: { key: INSTANCE },
            goods: [{ name: 'x' }],
            requestId,
          })
        ).json().errors[0].pointer,
      ).toBe('/goods/0/code');

      const dis = (await (await fetch(`${sandbox.url}/_sandbox/events?type=DI`)).json()) as any;
      expect(dis.total).toBe(1);
      expect(dis.items[0]).toMatchObject({
        type: 'DI',
        requestId,
        requestKnown: true,
        body: { goods, requestId },
      });
      const cls = (await (await fetch(`${sandbox.url}/_sandbox/events?type=CL`)).json()) as any;
      expect(cls.total).toBe(1);
      expect(cls.items[0]).toMatchObject({ type: 'CL', requestId: 'made-up', requestKnown: false });
      // Contract events have no such mark.
      expect(((await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as any).events.byType).toEqual({
        DI: 1,
        CL: 1,
      });
    } finally {
      await sandbox.close();
    }
  });

  it('applies the fault flags to the client paths, with CORS headers on the fault', async () => {
    const sandbox = await start({ instanceKey: INSTANCE, faults: { failRate: 1, failStatus: 503 } });
    try {
      const res = await post(sandbox.url, '/client/search', { instanceKey: INSTANCE, queryText: 'x' });
      expect(res.status).toBe(503);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    } finally {
      await sandbox.close();
    }
  });

  it('forgets searches on reset: a DI for an old requestId is then unknown', async () => {
    const sandbox = await withCatalog();
    try {
      const { requestId } = (
        await post(sandbox.url, '/client/search', { instanceKey: INSTANCE, queryText: 'x' })
      ).json();
      const reset = await fetch(`${sandbox.url}/_sandbox/reset`, {
        method: 'POST',
        headers: { 'x-genser-sandbox': '1' },
      });
      expect(reset.status).toBe(200);
      const goods = [{ code: 'K-1', name: 'n' }];
      expect(
        (await post(sandbox.url, '/client/di', { instance: { key: INSTANCE }, goods, requestId })).status,
      ).toBe(204);
      const dis = (await (await fetch(`${sandbox.url}/_sandbox/events?type=DI`)).json()) as any;
      expect(dis.items[0].requestKnown).toBe(false);
    } finally {
      await sandbox.close();
    }
  });

  it('shows stock: standard availability from the batch, legacy isInStock at once', async () => {
    const sandbox = await start({ instanceKey: INSTANCE });
    try {
      const soldOut = product('S-1', { name: 'Canvas Tote' });
      (soldOut.offers as Record<string, unknown>).availability = 'OutOfStock';
      expect((await postStandard(sandbox.url, envelope([soldOut]))).status).toBe(200);
      expect(
        (await postLegacy(sandbox.url, [legacyProduct('L-1', { name: 'Linen Tote', isInStock: true })]))
          .status,
      ).toBe(200);
      await sandbox.runBatch();
      const stock = async () =>
        Object.fromEntries(
          (await post(sandbox.url, '/client/search', { instanceKey: INSTANCE, queryText: 'tote' }))
            .json()
            .products.map((p: { code: string; inStock: boolean }) => [p.code, p.inStock]),
        );
      expect(await stock()).toEqual({ 'S-1': false, 'L-1': true });
      // Sold out through the legacy API: search shows it before any batch.
      expect(
        (await postLegacy(sandbox.url, [legacyProduct('L-1', { name: 'Linen Tote', isInStock: false })]))
          .status,
      ).toBe(200);
      expect(await stock()).toEqual({ 'S-1': false, 'L-1': false });
    } finally {
      await sandbox.close();
    }
  });

  it('fills the demo page with an instance key that cannot break out of its script string', async () => {
    const key = `k'</script><script>alert(1)</script>\\`;
    const sandbox = await start({ instanceKey: key });
    try {
      const html = await (await fetch(`${sandbox.url}/_sandbox/demo`)).text();
      expect(html).not.toContain('alert(1)</script>');
      const literal = /const INSTANCE_KEY = '([^']*)';/.exec(html)![1];
      // The JS string literal decodes to the key itself.
      expect(JSON.parse(`"${literal}"`)).toBe(key);
    } finally {
      await sandbox.close();
    }
  });

  it('generates an instance key when none is given', async () => {
    const sandbox = await start();
    try {
      expect(sandbox.instanceKey).toMatch(/^sbx_ins_[0-9a-f]{32}$/);
    } finally {
      await sandbox.close();
    }
  });
});
