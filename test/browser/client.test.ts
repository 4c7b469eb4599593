import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { packageRoot } from '../../src/shared/paths.js';
import { start } from '../sandbox/helpers.js';
import { HAVE_CHROMIUM, launchChromium, type RunningBrowser, SCREENSHOT_DIR } from './chromium.js';

/**
 * The demo page in a real browser (Debian chromium): a merchant's page on another origin than
 * the backend (so CORS and the preflight are real), talking to a sandbox that holds the sample
 * catalog, uploaded by the built CLI and applied by the batch.
 */
const INSTANCE_KEY = 'browser-test-instance-key';
// Functions passed to page.evaluate run in the page; the Node program has no DOM types.
declare const window: any;
declare const document: any;
const run = promisify(execFile);

interface Events {
  total: number;
  items: { type: string; requestId: string; requestKnown?: boolean; body: any }[];
}

describe.skipIf(!HAVE_CHROMIUM)('the client in a browser', () => {
  let browser: RunningBrowser;
  let sandbox: RunningSandbox;
  let shop: Server;
  let shopUrl: string;
  let page: Page;
  const pageErrors: string[] = [];
  /** Every request the page makes to the backend's /client/ paths. */
  const clientRequests: string[] = [];

  beforeAll(async () => {
    mkdirSync(SCREENSHOT_DIR, { recursive: true });
    sandbox = await start({ instanceKey: INSTANCE_KEY });
    const upload = run(
      process.execPath,
      [
        join(packageRoot, 'bin', 'genser.js'),
        'upload',
        join(packageRoot, 'fixtures', 'catalog.csv'),
        '--quiet',
      ],
      { env: { ...process.env, GENSER_API_URL: sandbox.url, GENSER_API_KEY: sandbox.apiKey, NO_COLOR: '1' } },
    );
    // The browser starts while the CLI uploads; one page serves every test (a new page costs ~1 s).
    browser = await launchChromium();
    [page] = await Promise.all([browser.browser.newPage(), upload]);
    expect(await sandbox.runBatch()).toEqual({ applied: 25 });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('request', (r) => {
      if (r.url().includes('/client/')) clientRequests.push(r.url());
    });
    // Result links lead to the shop's product pages; answer them here (there is no network).
    await page.route('https://shop.example.com/**', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: '<!doctype html><title>product</title><h1>product page</h1>',
      }),
    );
    // The merchant's page: the demo as the sandbox serves it, from another origin (another port).
    const html = await (await fetch(`${sandbox.url}/_sandbox/demo`)).text();
    shop = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(html);
    });
    await new Promise<void>((r) => shop.listen(0, '127.0.0.1', r));
    shopUrl = `http://localhost:${(shop.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    shop?.close();
    await Promise.all([browser?.close(), sandbox?.close()]);
  });

  const events = async (type: string): Promise<Events> =>
    (await fetch(`${sandbox.url}/_sandbox/events?type=${type}&limit=1000`)).json() as Promise<Events>;

  /** The merchant's page, fresh (no search done yet). */
  async function openShop(url = shopUrl): Promise<Page> {
    await page.goto(url);
    await page.waitForFunction(() => window.genser?.loaded === true);
    expect(pageErrors).toEqual([]);
    return page;
  }

  /** Types a query, presses Enter, waits for the answer and the list; returns what was shown. */
  async function search(page: Page, query: string) {
    await page.fill('#query', query);
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/client/search') && r.request().method() === 'POST'),
      page.press('#query', 'Enter'),
    ]);
    const answer = await response.json();
    await page.waitForFunction((q) => document.getElementById('status')!.textContent!.includes(q), query);
    const shown = await page.$$eval('#results a', (as) =>
      as.map((a) => ({ code: (a as any).dataset.code!, name: (a as any).dataset.name! })),
    );
    return { answer, shown };
  }

  async function waitForEvent(type: string, requestId: string) {
    let found: Events['items'][number] | undefined;
    await expect
      .poll(async () => {
        found = (await events(type)).items.find((e) => e.requestId === requestId);
        return found !== undefined;
      })
      .toBe(true);
    return found!;
  }

  it('shows results for a Korean and an English query, and records a DI of what was shown', async () => {
    await openShop();
    const korean = await search(page, '가방');
    expect(korean.shown.map((g) => g.code)).toEqual(['GS-0001', 'GS-0002', 'GS-0003']);
    expect(korean.shown.map((g) => g.name)).toEqual(['가죽 토트백', '캔버스 백팩', '미니 크로스백']);
    expect(korean.answer.requestId).toMatch(/^[0-9a-f-]{36}$/);
    const di = await waitForEvent('DI', korean.answer.requestId);
    expect(di.requestKnown).toBe(true);
    expect(di.body).toEqual({
      name: 'DI',
      instance: { key: INSTANCE_KEY },
      goods: korean.shown,
      requestId: korean.answer.requestId,
    });
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'client-search-korean.png') });

    const english = await search(page, 'wallet');
    expect(english.shown[0]).toEqual({ code: 'GS-0004', name: 'Bifold Wallet' });
    expect(english.answer.requestId).not.toBe(korean.answer.requestId);
    expect((await waitForEvent('DI', english.answer.requestId)).body.goods).toEqual(english.shown);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'client-search-english.png') });
  });

  it('records a CL with the requestId and the clicked item when a result is clicked', async () => {
    await openShop();
    const { answer, shown } = await search(page, 'バッグ');
    expect(shown[0].code).toBe('GS-0001');
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'client-search-japanese.png') });
    // The click leaves the page: the beacon must still arrive.
    await Promise.all([
      page.waitForURL('https://shop.example.com/**'),
      page.click('#results li:nth-child(2) a'),
    ]);
    const cl = await waitForEvent('CL', answer.requestId);
    expect(cl).toMatchObject({
      requestKnown: true,
      body: { name: 'CL', goods: [shown[1]], instance: { key: INSTANCE_KEY } },
    });
  });

  it('with no search done, a click records nothing', async () => {
    await openShop();
    const before = (await events('CL')).total;
    clientRequests.length = 0;
    await page.evaluate(() => window.logClick({ code: 'GS-0001', name: '가죽 토트백' }));
    await page.waitForFunction(() =>
      document.getElementById('status')!.textContent!.includes('no-request-id'),
    );
    await page.waitForTimeout(200);
    expect(clientRequests).toEqual([]);
    expect((await events('CL')).total).toBe(before);
    await page.screenshot({ path: join(SCREENSHOT_DIR, 'client-click-without-search.png') });
  });

  it('runs a search made before genser.js arrived (the queue snippet)', async () => {
    // Hold the script back until the search has been submitted.
    let release!: () => void;
    const held = new Promise<void>((r) => {
      release = r;
    });
    await page.route('**/genser.js', async (route) => {
      await held;
      await route.continue();
    });
    try {
      await page.goto(shopUrl, { waitUntil: 'domcontentloaded' });
      expect(await page.evaluate(() => window.genser.loaded === true)).toBe(false);
      await page.fill('#query', '지갑');
      await page.press('#query', 'Enter');
      expect(await page.evaluate(() => window.genser.q.length)).toBe(1);
      release();
      await page.waitForFunction(() => document.getElementById('status').textContent.includes('지갑'));
      const codes = await page.$$eval('#results a', (as) => as.map((a) => (a as any).dataset.code));
      expect(codes[0]).toBe('GS-0004');
      expect(await page.evaluate(() => window.genser.loaded)).toBe(true);
    } finally {
      release();
      await page.unroute('**/genser.js');
    }
  });

  it('runs .error when the backend is stopped (the sandbox demo page, same origin)', async () => {
    const own = await start({ instanceKey: INSTANCE_KEY });
    try {
      await openShop(`${own.url}/_sandbox/demo`);
      const { answer } = await search(page, 'tote');
      expect(answer).toMatchObject({ type: 'SEARCH', total: 0 }); // nothing uploaded here
      await own.close();
      await page.fill('#query', 'tote');
      await page.press('#query', 'Enter');
      await page.waitForFunction(() => document.getElementById('status')!.className === 'error');
      expect(await page.textContent('#status')).toMatch(/^Search failed \(network\): /);
      expect(await page.$$('#results li')).toHaveLength(0);
      await page.screenshot({ path: join(SCREENSHOT_DIR, 'client-backend-stopped.png') });
    } finally {
      await own.close();
    }
  });
});
