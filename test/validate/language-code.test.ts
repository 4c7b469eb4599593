import { describe, expect, it } from 'vitest';
import { processReads } from '../../src/feed/inline.js';
import { emptyStats, tally } from '../../src/feed/pipeline.js';
import { getValidator } from '../../src/schema/schemas.js';
import type { FeedItem, FeedOptions } from '../../src/shared/types.js';
import { asReads, rowsRecords } from '../map/csv-records.js';

/** Content data's languageCode is any ISO 639-1 code (contract 2.8), in the CLI and the sandbox alike. */
const opts: FeedOptions = {
  format: 'legacy',
  kind: 'contents',
  encoding: 'auto',
  language: 'ko',
  strict: false,
  country: 'KR',
};

const content = (languageCode: string) => ({
  code: 'C-1',
  name: '요가 클래스',
  'categories.largeCode': 'EDU',
  'categories.largeName': '교육',
  'image.mainUrl': 'https://cdn.example.kr/c.jpg',
  'image.detailUrls': 'https://cdn.example.kr/c-1.jpg',
  'priceInfo.currency': 'KRW',
  'priceInfo.price': '30000',
  'priceInfo.salePrice': '25000',
  createdAt: '2026-01-01',
  languageCode,
});

async function issuesOf(languageCode: string) {
  const items: FeedItem[] = [];
  const stats = emptyStats();
  for await (const item of processReads(
    ['c.csv'],
    () => asReads(rowsRecords([content(languageCode)])),
    opts,
  )) {
    items.push(item);
    tally(stats, item);
  }
  return items.flatMap((i) => i.issues).filter((i) => i.severity === 'error');
}

describe('content languageCode', () => {
  it.each(['ko', 'en', 'ja', 'zh', 'fr', 'vi', 'th'])('accepts %s', async (code) => {
    expect(await issuesOf(code)).toEqual([]);
  });

  it('refuses what is not an ISO 639-1 code, naming the rule', async () => {
    const [issue, ...rest] = await issuesOf('xx');
    expect(rest).toEqual([]);
    expect(issue).toMatchObject({ code: 'language', field: 'languageCode' });
    expect(issue.message).toContain('must be an ISO 639-1 language code');
    expect((await issuesOf('english')).map((i) => i.code)).toEqual(['language']);
  });

  it('the sandbox validates with the same schema', () => {
    const validate = getValidator('legacy-content');
    const body = (languageCode: string) => ({
      code: 'C-1',
      name: 'yoga',
      categories: [{ largeCode: 'EDU', largeName: 'Education' }],
      image: { mainUrl: 'https://cdn.example.kr/c.jpg', detailUrls: [] },
      priceInfo: { currency: 'KRW', price: 30000, salePrice: 25000 },
      createdAt: '2026-01-01T00:00:00Z',
      languageCode,
    });
    expect(validate(body('zh'))).toBe(true);
    expect(validate(body('xx'))).toBe(false);
  });
});
