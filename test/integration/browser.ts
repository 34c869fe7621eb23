/**
 * A real headless browser for the self-contained pages (report.html, sweep.html,
 * bench.html): Debian's chromium through playwright-core, with the flags ENVIRONMENT.md
 * says it needs as root here. Under CI=true a missing chromium is a failure, never a skip.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type BrowserContext, chromium, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export const noBrowser = existsSync(CHROMIUM) ? undefined : `no ${CHROMIUM} (apt-get install chromium)`;
if (noBrowser && process.env.CI) throw new Error(`CI=true and ${noBrowser}`);

export interface Opened {
  page: Page;
  /** Console errors, page errors, and requests for anything but the file itself. */
  problems: string[];
}

let context: BrowserContext | undefined;

/** Opens a page and waits until its script sets body[data-ready="true"]. */
export async function openPage(path: string): Promise<Opened> {
  return openUrl(pathToFileURL(path).href, /^(file|data):/);
}

/**
 * Opens a URL (a page `lockchaos serve` answers, say) and waits for body[data-ready="true"];
 * a request to anything that `allowed` does not match is a problem.
 */
export async function openUrl(url: string, allowed: RegExp): Promise<Opened> {
  if (!context) {
    // playwright passes the user data dir as --user-data-dir itself: a new empty one.
    context = await chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), 'lockchaos-chromium-')), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 1000 },
    });
  }
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(`console error: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('request', (r) => {
    if (!allowed.test(r.url())) problems.push(`request: ${r.url()}`);
  });
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]', { timeout: 60_000 });
  return { page, problems };
}

export async function closeBrowser(): Promise<void> {
  await context?.close();
  context = undefined;
}
