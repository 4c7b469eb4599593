import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HAVE_CHROMIUM, launchChromium, type RunningBrowser } from './chromium.js';

describe.skipIf(!HAVE_CHROMIUM)('browser harness', () => {
  let run: RunningBrowser;
  beforeAll(async () => {
    run = await launchChromium();
  });
  afterAll(async () => {
    await run?.close();
  });

  it('renders a page served on 127.0.0.1 and runs its script', async () => {
    const server = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>t</title><p id="p">-</p><script>p.textContent = 1 + 1</script>');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const page = await run.browser.newPage();
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(await page.textContent('#p')).toBe('2');
      await page.close();
    } finally {
      server.close();
    }
  });
});
