import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSandbox } from '../../src/sandbox/index.js';
import { envelope, postStandard, product, start } from '../sandbox/helpers.js';
import { HAVE_CHROMIUM, launchChromium, type RunningBrowser } from './chromium.js';

/** A page on another origin, in a real browser, tries to wipe the sandbox (docs/sandbox.md). */
describe.skipIf(!HAVE_CHROMIUM)('the sandbox in a browser', () => {
  let browser: RunningBrowser;
  let sandbox: RunningSandbox;
  let evil: Server;
  let evilUrl: string;

  beforeAll(async () => {
    sandbox = await start();
    expect((await postStandard(sandbox.url, envelope([product('B-1'), product('B-2')]))).status).toBe(200);
    evil = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>a page</title>');
    });
    await new Promise<void>((r) => evil.listen(0, '127.0.0.1', r));
    evilUrl = `http://localhost:${(evil.address() as AddressInfo).port}/`;
    browser = await launchChromium();
  });
  afterAll(async () => {
    evil?.close();
    await Promise.all([browser?.close(), sandbox?.close()]);
  });

  it('a no-cors POST to /_sandbox/reset from another origin leaves every product in place', async () => {
    const page = await browser.browser.newPage();
    await page.goto(evilUrl);
    const tried = await page.evaluate(async (target) => {
      const tries = [
        fetch(`${target}/_sandbox/reset`, { method: 'POST', mode: 'no-cors' }),
        fetch(`${target}/_sandbox/reset`, { method: 'POST', mode: 'no-cors', body: '{}' }),
        fetch(`${target}/_sandbox/batch`, { method: 'POST', mode: 'no-cors' }),
      ];
      return (await Promise.allSettled(tries)).map((t) => t.status);
    }, sandbox.url);
    // The requests went out (opaque answers): the sandbox itself refused them.
    expect(tried).toEqual(['fulfilled', 'fulfilled', 'fulfilled']);
    // A request with the JSON type needs a preflight, which the admin routes never grant.
    const preflighted = await page.evaluate(async (target) => {
      try {
        await fetch(`${target}/_sandbox/reset`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        return 'sent';
      } catch {
        return 'blocked';
      }
    }, sandbox.url);
    expect(preflighted).toBe('blocked');
    await page.close();
    const stats = (await (await fetch(`${sandbox.url}/_sandbox/stats`)).json()) as {
      products: { total: number; applied: number };
    };
    expect(stats.products).toMatchObject({ total: 2, applied: 0 });
  });
});
