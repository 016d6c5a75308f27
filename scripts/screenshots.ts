/**
 * Screenshots of the console's main screens at 1280 and 390 px wide, for a person to look at:
 * sign-in, incidents, events, dead letters, the Runtime page's servers, the Alerts screen in light
 * and dark.
 *
 *   npm run build && npm run screenshots
 *
 * Starts its own server the way the e2e tests do (fresh data folder, demo traffic), drives the
 * console through the e2e page objects and writes PNGs to $SCREENSHOTS_DIR (default
 * scratch/screenshots). It checks nothing: the e2e specs do that.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium, expect, type Page } from '@playwright/test';
import { removeAlerts, seedAlerts } from '../e2e/alerts-seed';
import { saveAtBothWidths } from '../e2e/console-checks';
import { signInContext } from '../e2e/fixtures';
import { AlertsPage } from '../e2e/pages/alerts-page';
import { EventsPage } from '../e2e/pages/events-page';
import { IncidentsPage } from '../e2e/pages/incidents-page';
import { RuntimePage, ServersPanel } from '../e2e/pages/runtime-page';
import { ConsoleShell } from '../e2e/pages/shell-page';
import { SignInScreen } from '../e2e/pages/sign-in-page';
import { ServerProcess, repoRoot } from '../e2e/server-process';
import { startWebhookReceiver } from '../e2e/webhook-receiver';

const outDir = path.resolve(process.env.SCREENSHOTS_DIR ?? path.join(repoRoot, 'scratch', 'screenshots'));
const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

async function signInAndCoreScreens(page: Page, server: ServerProcess): Promise<void> {
  const shot = (name: string) => saveAtBothWidths(page, outDir, name);
  const signIn = new SignInScreen(page);
  await signIn.goto(`${server.url}/`);
  await expect(signIn.tokenInput).toBeVisible();
  await shot('01-sign-in');
  await signIn.submit('sbk_wrong');
  await expect(signIn.error).toBeVisible();
  await shot('02-sign-in-error');

  await signInContext(page, server);
  // The demo's failing payments tool makes the dead letters the later screens show.
  await expect
    .poll(async () => (await server.rpc('event.list', { filter: { has_dead_letter: true }, limit: 1 })).events.length, { message: 'a dead letter', timeout: 90_000 })
    .toBeGreaterThan(0);
  const incidents = new IncidentsPage(page);
  const shell = new ConsoleShell(page);
  await page.goto(`${server.url}/incidents`);
  await expect(incidents.rows.first()).toBeVisible();
  await expect(shell.heartbeat).toContainText('Healthy');
  await shot('03-incidents');
  await shell.heartbeat.focus();
  await shot('04-heartbeat-details');
  await shell.heartbeat.blur();
  await incidents.rows.first().click();
  await expect(incidents.logRecords.first()).toBeVisible();
  await shot('05-incident-detail');

  const events = new EventsPage(page);
  await page.goto(`${server.url}/events`);
  await expect(events.rows.first()).toBeVisible();
  await shot('06-events');
  await events.rows.first().click();
  await expect(events.jsonTree).toBeVisible();
  await shot('07-event-detail');

  await page.goto(`${server.url}/dead-letters`);
  await expect(events.rows.first()).toBeVisible();
  await shot('08-dead-letters');
  await events.rows.first().click();
  await expect(events.deadLetterCards.first()).toBeVisible();
  await shot('09-dead-letter-detail');

  await page.goto(`${server.url}/events?event_name=no.such.event`);
  await expect(events.noMatch).toBeVisible();
  await shot('10-events-empty');

  const servers = new ServersPanel(page);
  const runtime = new RuntimePage(page);
  await runtime.goto(server.url);
  await expect(servers.selfRow).toBeVisible();
  await shot('16-runtime-servers');
  await expect(runtime.retention.settings).toBeVisible();
  await saveAtBothWidths(page, outDir, '17-runtime-retention', { scrollTo: runtime.retention.root });
}

async function alertScreens(page: Page, server: ServerProcess): Promise<void> {
  const shot = (name: string) => saveAtBothWidths(page, outDir, name);
  const receiver = await startWebhookReceiver();
  const seeded = await seedAlerts(server, receiver.url, 'screens');
  try {
    const alerts = new AlertsPage(page);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.goto(`${server.url}/alerts`);
      await expect(alerts.ruleRow(seeded.rule.name)).toBeVisible();
      await shot(`11-alerts-rules-${scheme}`);
      await alerts.addRule.click();
      await alerts.ruleTrigger.selectOption('mailbox.sla');
      await shot(`12-alerts-rule-form-${scheme}`);
      await page.keyboard.press('Escape');
      await alerts.tab('destinations').click();
      await expect(alerts.destinationRow(seeded.destination.name)).toBeVisible();
      await shot(`13-alerts-destinations-${scheme}`);
      await page.goto(`${server.url}/alerts/history`);
      await expect(alerts.noticeStatus(alerts.notices.filter({ hasText: seeded.destination.name }))).toHaveText('delivered', { timeout: 30_000 });
      await shot(`14-alerts-history-${scheme}`);
      await alerts.tab('silences').click();
      await alerts.addSilence.click();
      await shot(`15-alerts-silence-form-${scheme}`);
      await page.keyboard.press('Escape');
    }
  } finally {
    await removeAlerts(server, seeded.ruleNames, seeded.destinationNames);
    await receiver.close();
  }
}

async function main(): Promise<void> {
  if (!fs.existsSync(path.join(repoRoot, 'dist', 'web', 'index.html'))) throw new Error('no console build in dist/web: run `npm run build` first');
  const server = await ServerProcess.start();
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await signInAndCoreScreens(page, server);
    await alertScreens(page, server);
    console.log(`screenshots in ${outDir}`);
  } catch (err) {
    console.error(`server output:\n${server.log}`);
    throw err;
  } finally {
    await browser.close();
    await server.dispose();
  }
}

await main();
