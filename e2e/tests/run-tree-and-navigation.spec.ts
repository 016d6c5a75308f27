/**
 * The causal run view (event → deliveries → emitted events, with turns and mailbox items where
 * they happened), and the 390 px navigation reaching every screen.
 */
import { expect, test } from '../fixtures';
import { EventsPage } from '../pages/events-page';
import { SessionHeader } from '../pages/people-page';
import { ConsoleShell } from '../pages/shell-page';
import { seriousViolations, shotAtBothWidths } from '../console-checks';

test('the run tree shows what caused what, with turns and mailbox items attached, and links to them', async ({ signedIn: page, server }) => {
  const { items } = await server.rpc('mailbox.list', { filter: { status: 'approved' }, limit: 1 });
  expect(items.length, 'the demo scenario approves items').toBeGreaterThan(0);
  const item = await server.rpc('mailbox.get', { mailbox_id: items[0]!.mailbox_id });
  const source = (await server.rpc('event.list', { filter: { event_id: item.item.source_event_id! } })).events[0]!;
  await page.goto(`/events?run_id=${source.run_id}`);
  const events = new EventsPage(page);
  await events.runTreeToggle.click();
  await expect(page).toHaveURL(/view=tree/);
  const view = events.runTree;
  // Other tests may still be adding to this run: compare with the API until both have settled.
  let tree = await server.rpc('run.tree', { run_id: source.run_id! });
  await expect(async () => {
    tree = await server.rpc('run.tree', { run_id: source.run_id! });
    await page.reload();
    await expect(view.events).toHaveCount(tree.events.length, { timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  await expect(view.deliveries).toHaveCount(tree.deliveries.length);
  await expect(view.turns).toHaveCount(tree.turns.length);
  // The approved item hangs under its source event, and what it emitted under it.
  const mailboxNode = view.mailboxItems.filter({ hasText: item.item.mailbox_id });
  await expect(mailboxNode).toContainText('approved');
  const emitted = tree.events.find((e) => e.event_id === item.emitted_event_id)!;
  await expect(view.eventsUnder(mailboxNode).first()).toContainText(emitted.event_name);
  // A failed delivery is marked in words.
  for (const d of tree.deliveries.filter((x) => x.status === 'failed')) await expect(view.deliveriesWithStatus('failed').first()).toContainText(d.subscriber_id);
  expect(await seriousViolations(page)).toEqual([]);
  await shotAtBothWidths(page, '90-run-tree');

  const turn = tree.turns[0]!;
  await view.link(turn.turn_id).click();
  await expect(page).toHaveURL(new RegExp(`/conversations/${turn.session_id}[?]turn=${turn.turn_id}`));
});

test('at 390 px the navigation reaches every screen', async ({ signedIn: page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/incidents');
  const header = new SessionHeader(page);
  const screens: [string, RegExp][] = [
    ['Incidents', /\/incidents/],
    ['Events', /\/events/],
    ['Dead letters', /\/dead-letters/],
    ['Mailbox', /\/mailbox/],
    ['Agents', /\/agents/],
    ['Conversations', /\/conversations/],
    ['Runtime', /\/runtime/],
  ];
  for (const [name, url] of screens) {
    const link = header.navLink(name);
    await expect(link).toBeInViewport({ ratio: 1 });
    await link.click();
    await expect(page).toHaveURL(url);
    await expect(new ConsoleShell(page).heading).toBeVisible();
  }
  await page.screenshot({ path: 'scratch/screens/91-nav-390.png' });
});
