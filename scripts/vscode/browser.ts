/** Debian's chromium driven by playwright-core (never a downloaded browser). */
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM } from './codeServer';

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

export async function newWorkbenchPage(browser: Browser): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  return context.newPage();
}
