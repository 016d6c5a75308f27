/** Shared checks of the console specs: axe (serious and critical only) and screenshots at both widths. */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type axe from 'axe-core';
import type { Locator, Page } from '@playwright/test';
import { repoRoot } from './server-process';

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const axeOptions: axe.RunOptions = {
  runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
  // Passes and incomplete results are not read here, and building them is most of a run's work.
  resultTypes: ['violations'],
};

/**
 * axe-core run in the page itself, injected once per document. @axe-core/playwright's analyze()
 * injected it again on every call and finished each run in a new tab: 4.1-4.6 s a scan against
 * 0.5-0.6 s, the same violations found (docs/performance-notes.md). The console has no frames
 * for its per-frame runs to reach.
 */
export async function seriousViolations(page: Page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  const results: axe.AxeResults = await page.evaluate((options) => (window as unknown as { axe: typeof axe }).axe.run(document, options), axeOptions);
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 5).map((n) => n.target.join(' ')) }));
}

const screenshotDir = process.env.E2E_SCREENSHOT_DIR ?? path.join(repoRoot, 'scratch', 'screens');
/**
 * Screenshots are for people to look at, so a CI run on a throwaway clone skips them (they cost it
 * about a minute); E2E_SCREENSHOTS=1 or 0 decides either way.
 */
const screenshotsWanted = process.env.E2E_SCREENSHOTS ? process.env.E2E_SCREENSHOTS !== '0' : process.env.CI !== 'true';

export const WIDTHS = [
  { name: '1280', width: 1280, height: 800 },
  { name: '390', width: 390, height: 844 },
] as const;

/**
 * Saves the page as `<name>-<width>.png` in `dir` at each width, then restores the original
 * viewport. With `scrollTo`, that part of the page is scrolled into view at each width (a resize moves it).
 */
export async function saveAtBothWidths(page: Page, dir: string, name: string, opts: { scrollTo?: Locator } = {}): Promise<void> {
  fs.mkdirSync(dir, { recursive: true });
  const original = page.viewportSize();
  for (const w of WIDTHS) {
    await page.setViewportSize({ width: w.width, height: w.height });
    await page.waitForTimeout(200);
    await opts.scrollTo?.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await page.screenshot({ path: path.join(dir, `${name}-${w.name}.png`) });
  }
  if (original) await page.setViewportSize(original);
}

/** A spec's picture of what it just checked, at both widths, when screenshots are wanted. */
export async function shotAtBothWidths(page: Page, name: string, opts: { scrollTo?: Locator } = {}): Promise<void> {
  if (screenshotsWanted) await saveAtBothWidths(page, screenshotDir, name, opts);
}
