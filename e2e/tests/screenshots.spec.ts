/** Screenshots of each screen at desktop and phone widths, for a person to look at (scratch/screens). */
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { repoRoot } from '../server-process';
import { eventually, expect, signInContext, test } from '../fixtures';

const outDir = process.env.E2E_SCREENSHOT_DIR ?? path.join(repoRoot, 'scratch', 'screens');
const widths = [
  { name: '1280', width: 1280, height: 800 },
  { name: '390', width: 390, height: 844 },
];

for (const size of widths) {
  test(`screenshots at ${size.width} px`, async ({ page, server }) => {
    test.setTimeout(120_000);
    fs.mkdirSync(outDir, { recursive: true });
    await page.setViewportSize({ width: size.width, height: size.height });
    const shot = async (p: Page, name: string) => {
      await p.waitForTimeout(150);
      await p.screenshot({ path: path.join(outDir, `${name}-${size.name}.png`) });
    };

    await page.goto('/');
    await expect(page.getByLabel('Access token')).toBeVisible();
    await shot(page, '01-sign-in');
    await page.getByLabel('Access token').fill('sbk_wrong');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toBeVisible();
    await shot(page, '02-sign-in-error');

    await signInContext(page, server);
    await eventually('a dead letter', async () => (await server.rpc('event.list', { filter: { has_dead_letter: true }, limit: 1 })).events.length > 0, 90_000);
    await page.goto('/incidents');
    await expect(page.getByTestId('incident-row').first()).toBeVisible();
    await expect(page.getByTestId('heartbeat')).toContainText('Healthy');
    await shot(page, '03-incidents');
    await page.getByTestId('heartbeat').hover();
    await shot(page, '04-heartbeat-details');
    await page.mouse.move(0, size.height - 1);
    await page.getByTestId('incident-row').first().click();
    await expect(page.getByTestId('log-record').first()).toBeVisible();
    await shot(page, '05-incident-detail');

    await page.goto('/events');
    await expect(page.getByTestId('event-row').first()).toBeVisible();
    await shot(page, '06-events');
    await page.getByTestId('event-row').first().click();
    await expect(page.getByTestId('json-tree')).toBeVisible();
    await shot(page, '07-event-detail');

    await page.goto('/dead-letters');
    await expect(page.getByTestId('event-row').first()).toBeVisible();
    await shot(page, '08-dead-letters');
    await page.getByTestId('event-row').first().click();
    await expect(page.getByTestId('dead-letter').first()).toBeVisible();
    await shot(page, '09-dead-letter-detail');

    await page.goto('/events?event_name=no.such.event');
    await expect(page.getByText('No events match these filters')).toBeVisible();
    await shot(page, '10-events-empty');
  });
}
