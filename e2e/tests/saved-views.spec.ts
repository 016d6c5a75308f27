/**
 * Issue #39, saved views: a person saves the filters of a list under a name, opens them again by
 * URL (the list's link, or `?saved_view=<id>` alone), renames and deletes the view; a view shared
 * by one person is listed to another with its owner's name, opens for them, and is theirs to open
 * but not to change.
 */
import { seriousViolations, shotAtBothWidths, WIDTHS } from '../console-checks';
import { expect, test } from '../fixtures';
import { EventsPage } from '../pages/events-page';
import { IncidentsPage } from '../pages/incidents-page';
import { signInByPasting } from '../pages/people-page';
import { SavedViewsBar } from '../pages/saved-views-page';
import { personWithToken } from '../people';

test('saves a view of filtered events, reopens it by URL, renames it and deletes it', async ({ page, server }) => {
  const person = await personWithToken(server, 'viewer', 'views');
  await signInByPasting(page, person.secret, '/events?event_name=ticket&range=24h');
  const events = new EventsPage(page);
  const views = new SavedViewsBar(page);
  await expect(events.eventName).toHaveValue('ticket');

  await views.save('Tickets today');
  await expect(views.dialog.root).toHaveCount(0);
  await expect(views.toggle).toContainText('View: Tickets today');
  const viewId = await views.openedViewId();
  expect(viewId).toMatch(/^view_/);
  await page.reload();
  await expect(views.toggle).toContainText('View: Tickets today');
  await expect(events.eventName).toHaveValue('ticket');

  // From the unfiltered list, the menu opens it: the filters come back into the URL and the bar.
  await page.goto('/events');
  await expect(events.eventName).toHaveValue('');
  await views.openMenu();
  await expect(views.view('Tickets today').meta).toHaveText('private');
  // Escape closes the menu and gives focus back to its button; the keyboard opens it again.
  await page.keyboard.press('Escape');
  await expect(views.menu).toBeHidden();
  await expect(views.toggle).toBeFocused();
  await page.keyboard.press('Enter');
  await expect(views.menu).toBeVisible();
  await views.view('Tickets today').link.click();
  await expect(page).toHaveURL(/event_name=ticket/);
  await expect(page).toHaveURL(/range=24h/);
  await expect(events.eventName).toHaveValue('ticket');
  await expect(events.timeRange).toHaveValue('24h');

  // A link with only the view's id loads the view's filters as they are now.
  await page.goto(`/events?saved_view=${viewId}`);
  await expect(page).toHaveURL(/event_name=ticket/);
  await expect(events.eventName).toHaveValue('ticket');
  await expect(views.toggle).toContainText('View: Tickets today');

  // Changed filters show as changed, and the owner may keep them under the view's name.
  await events.eventName.fill('order');
  await expect(views.toggle).toContainText('(changed)');
  await views.openMenu();
  await views.updateWithCurrent.click();
  await expect(views.toggle).not.toContainText('(changed)');
  await page.goto(`/events?saved_view=${viewId}`);
  await expect(events.eventName).toHaveValue('order');

  // A second view of the same name is refused, saying why.
  await views.saveButton.click();
  await views.dialog.name.fill('tickets TODAY');
  await views.dialog.confirm.click();
  await expect(views.dialog.error).toContainText('You already have a view named "tickets TODAY" on this list');
  await page.keyboard.press('Escape');
  await expect(views.dialog.root).toHaveCount(0);

  await views.rename('Tickets today', 'Order events');
  await expect(views.toggle).toContainText('View: Order events');
  await views.openMenu();
  await expect(views.view('Order events').root).toBeVisible();
  await expect(views.view('Tickets today').root).toHaveCount(0);

  await views.delete('Order events');
  await expect(views.dialog.root).toHaveCount(0);
  await expect(views.toggle).toHaveText(/^Views/);
  await views.openMenu();
  await expect(views.view('Order events').root).toHaveCount(0);
  await page.goto(`/events?saved_view=${viewId}`);
  await expect(views.missing).toBeVisible();
});

test("a shared view is listed to someone else with its owner's name and opens for them, but is not theirs to change", async ({ page, server, browser }) => {
  const owner = await personWithToken(server, 'operator', 'view-owner');
  const other = await personWithToken(server, 'viewer', 'view-reader');
  const name = `All incidents, newest first ${Date.now().toString(36)}`;
  await signInByPasting(page, owner.secret, '/incidents?state=all&sort=last_seen');
  const ownerViews = new SavedViewsBar(page);
  await ownerViews.save(name, { shared: true });
  await expect(ownerViews.toggle).toContainText(`View: ${name}`);
  const viewId = await ownerViews.openedViewId();
  await ownerViews.openMenu();
  await expect(ownerViews.view(name).meta).toHaveText('shared');

  const otherContext = await browser.newContext({ baseURL: server.url });
  try {
    const otherPage = await otherContext.newPage();
    await signInByPasting(otherPage, other.secret, '/incidents');
    const views = new SavedViewsBar(otherPage);
    await views.openMenu();
    const row = views.view(name);
    await expect(views.sharedByOthers.filter({ hasText: name })).toHaveCount(1);
    await expect(row.meta).toHaveText(`by ${owner.name}`);
    await expect(row.edit).toHaveCount(0);
    await expect(row.delete).toHaveCount(0);
    expect(await seriousViolations(otherPage)).toEqual([]);
    await shotAtBothWidths(otherPage, '39-saved-views-menu');
    // At phone width the menu stays on the screen.
    const phone = WIDTHS.find((w) => w.name === '390')!;
    await otherPage.setViewportSize({ width: phone.width, height: phone.height });
    await views.openMenu();
    const box = await views.menu.boundingBox();
    expect(box && box.x >= 0 && box.x + box.width <= phone.width).toBe(true);
    await otherPage.setViewportSize({ width: 1280, height: 800 });
    await views.openMenu();
    await row.link.click();
    const incidents = new IncidentsPage(otherPage);
    await expect(otherPage).toHaveURL(/state=all/);
    await expect(incidents.state).toHaveValue('all');
    await expect(incidents.sort).toHaveValue('last_seen');

    // Unshared, it is gone for them: their link now says so.
    await ownerViews.rename(name, name, { shared: false });
    await otherPage.goto(`/incidents?saved_view=${viewId}`);
    await expect(views.missing).toBeVisible();
  } finally {
    await otherContext.close();
  }
});

test('the dead letters and mailbox filter bars save and open views too', async ({ page, server }) => {
  const person = await personWithToken(server, 'reviewer', 'views-lists');
  const views = new SavedViewsBar(page);
  await signInByPasting(page, person.secret, '/dead-letters?redriven=0');
  await views.save('Not yet redriven');
  await expect(views.toggle).toContainText('View: Not yet redriven');

  await page.goto('/mailbox?status=pending&priority=high');
  await views.save('Urgent and pending');
  await page.goto('/mailbox');
  await views.openMenu();
  // Each list has its own views.
  await expect(views.view('Not yet redriven').root).toHaveCount(0);
  await views.view('Urgent and pending').link.click();
  await expect(page).toHaveURL(/status=pending/);
  await expect(page).toHaveURL(/priority=high/);
  await expect(views.toggle).toContainText('View: Urgent and pending');
});
