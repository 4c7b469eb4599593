import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium } from 'playwright-core';

/**
 * The one browser setup of the browser tests (reports, client): Debian's chromium driven by
 * playwright-core, which downloads nothing. `.ci/run` installs chromium when it is missing, so a
 * missing browser fails these tests rather than skipping them.
 */
export const CHROMIUM_PATH = process.env.GENSER_CHROMIUM ?? '/usr/bin/chromium';

/** The browser tests are skipped where there is no Chromium, saying so in one line. */
export const HAVE_CHROMIUM = existsSync(CHROMIUM_PATH);
if (!HAVE_CHROMIUM)
  process.stderr.write(
    `skipped: the browser tests need Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set GENSER_CHROMIUM)\n`,
  );

export interface RunningBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<RunningBrowser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(`no browser at ${CHROMIUM_PATH}: apt-get install chromium (or set GENSER_CHROMIUM)`);
  // playwright-core gives every launch a fresh, empty profile of its own.
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // The machine has no network but loopback: keep Chromium from dialling out at start.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
    },
  };
}

/** Screenshots of browser tests land here (ignored by git), for a person to look at. */
export const SCREENSHOT_DIR = join(process.cwd(), 'test-output', 'screenshots');
