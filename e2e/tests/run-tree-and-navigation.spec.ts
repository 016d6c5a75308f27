/**
 * The causal run view (event → deliveries → emitted events, with turns and mailbox items where
 * they happened), and the 390 px navigation reaching every screen.
 */
import { expect, test } from '../fixtures';
import { seriousViolations, shotAtBothWidths } from '../console-checks';

test('the run tree shows what caused what, with turns and mailbox items attached, and links to them', async ({ signedIn: page, server }) => {
  const { items } = await server.rpc('mailbox.list', { filter: { status: 'approved' }, limit: 1 });
  expect(items.length, 'the demo scenario approves items').toBeGreaterThan(0);
  const item = await server.rpc('mailbox.get', { mailbox_id: items[0]!.mailbox_id });
  const source = (await server.rpc('event.list', { filter: { event_id: item.item.source_event_id! } })).events[0]!;
  await page.goto(`/events?run_id=${source.run_id}`);
  await page.getByTestId('run-tree-toggle').click();
  await expect(page).toHaveURL(/view=tree/);
  const view = page.getByTestId('run-tree');
  // Other tests may still be adding to this run: compare with the API until both have settled.
  let tree = await server.rpc('run.tree', { run_id: source.run_id! });
  await expect(async () => {
    tree = await server.rpc('run.tree', { run_id: source.run_id! });
    await page.reload();
    await expect(view.getByTestId('tree-event')).toHaveCount(tree.events.length, { timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  await expect(view.getByTestId('tree-delivery')).toHaveCount(tree.deliveries.length);
  await expect(view.getByTestId('tree-turn')).toHaveCount(tree.turns.length);
  // The approved item hangs under its source event, and what it emitted under it.
  const mailboxNode = view.getByTestId('tree-mailbox').filter({ hasText: item.item.mailbox_id });
  await expect(mailboxNode).toContainText('approved');
  const emitted = tree.events.find((e) => e.event_id === item.emitted_event_id)!;
  await expect(mailboxNode.getByTestId('tree-event').first()).toContainText(emitted.event_name);
  // A failed delivery is marked in words.
  for (const d of tree.deliveries.filter((x) => x.status === 'failed')) await expect(view.locator(`[data-testid="tree-delivery"][data-status="failed"]`).first()).toContainText(d.subscriber_id);
  expect(await seriousViolations(page)).toEqual([]);
  await shotAtBothWidths(page, '90-run-tree');

  const turn = tree.turns[0]!;
  await view.getByRole('link', { name: turn.turn_id }).click();
  await expect(page).toHaveURL(new RegExp(`/conversations/${turn.session_id}[?]turn=${turn.turn_id}`));
});

test('at 390 px the navigation reaches every screen', async ({ signedIn: page }) => {
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto('/incidents');
  const nav = page.getByRole('navigation', { name: 'Main' });
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
    const link = nav.getByRole('link', { name, exact: true });
    await expect(link).toBeInViewport({ ratio: 1 });
    await link.click();
    await expect(page).toHaveURL(url);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
  }
  await page.screenshot({ path: 'scratch/screens/91-nav-390.png' });
});
