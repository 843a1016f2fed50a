/** Renders media/icon.svg to the 128×128 media/icon.png with headless chromium (`node --import tsx scripts/render-icon.ts`). */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from './vscode/browser';
import { REPO_ROOT } from './vscode/codeServer';

async function main(): Promise<void> {
  const svg = readFileSync(join(REPO_ROOT, 'media', 'icon.svg'), 'utf8');
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 128, height: 128 } });
    await page.setContent(`<html><body style="margin:0;background:transparent">${svg}</body></html>`);
    await page.locator('svg').screenshot({ path: join(REPO_ROOT, 'media', 'icon.png'), omitBackground: true });
  } finally {
    await browser.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
