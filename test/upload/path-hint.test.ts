import { describe, expect, it } from 'vitest';
import { samplePathHint } from '../../src/upload/path-hint.js';
import { envelope, postStandard, product, send, start } from '../sandbox/helpers.js';

describe('the sample request line /searches/products with apiKey', () => {
  it('gets a did-you-mean for a standard upload aimed at it (path or URL), none otherwise', () => {
    expect(samplePathHint('standard', '/searches/products')).toMatch(
      /did you mean POST \/collectors\/products\?/,
    );
    expect(
      samplePathHint('standard', '/collectors/products', 'https://api.example.com/searches/products'),
    ).toMatch(/^the URL https:\/\/api\.example\.com\/searches\/products is the legacy v0\.3 endpoint/);
    expect(samplePathHint('standard', '/collectors/products', 'https://api.example.com')).toBeUndefined();
    expect(samplePathHint('legacy', '/searches/products')).toBeUndefined();
  });

  it('the sandbox answers 400 naming /collectors/products, without checking or echoing the key', async () => {
    const sb = await start();
    try {
      const body = envelope([product('P-1')]);
      const res = await send(sb.url, '/searches/products', body, { apiKey: 'some-key-value-123' });
      expect(res.status).toBe(400);
      expect(res.text).toContain('did you mean POST /collectors/products?');
      expect(res.text).not.toContain('some-key-value-123');
      expect((await postStandard(sb.url, body)).status).toBe(200);
    } finally {
      await sb.close();
    }
  });
});
