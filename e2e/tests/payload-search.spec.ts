import { expect, test } from '../fixtures';
import { EventsPage } from '../pages/events-page';

test.describe('payload search', () => {
  test('finds events by a payload field typed into the filter bar, kept in the URL, and explains an unindexed search', async ({ signedIn: page, server }) => {
    const tag = Date.now().toString(36);
    const wanted = `T-e2e-${tag}-7`;
    for (const ticket of [wanted, `T-e2e-${tag}-8`, wanted]) {
      await server.rpc('event.publish', { event_name: 'survey.requested', payload: { ticket_id: ticket, resolution: `resolved ${ticket}` } });
    }
    const { events: expected } = await server.rpc('event.list', { filter: { event_name: 'survey.requested', payload: [{ path: 'ticket_id', op: 'eq', value: wanted }] } });
    expect(expected).toHaveLength(2);

    const browser = new EventsPage(page);
    await browser.goto();
    // The bundle's indexed fields are suggested, once the catalog has loaded.
    await expect.poll(() => browser.payloadSuggestions.evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value))).toContain('payload.ticket_id = ');

    await browser.payloadFilter.fill(`payload.ticket_id = ${wanted}`);
    await expect(page).toHaveURL(new RegExp(`payload=payload\\.ticket_id`));
    await expect(browser.rows).toHaveCount(2);
    await expect(browser.unindexedHint).toHaveCount(0);
    await browser.rows.first().click();
    await expect(browser.jsonTree).toContainText(wanted);

    // The URL alone reproduces the search.
    const url = page.url();
    const other = await page.context().newPage();
    await other.goto(url);
    const reopened = new EventsPage(other);
    await expect(reopened.payloadFilter).toHaveValue(`payload.ticket_id = ${wanted}`);
    await expect(reopened.rows).toHaveCount(2);
    await other.close();

    // A field without an index: the same events, and a note saying the search is bounded.
    await browser.payloadFilter.fill(`payload.resolution starts with "resolved ${wanted}"`);
    await expect(browser.unindexedHint).toBeVisible();
    await expect(browser.unindexedHint).toContainText('payload.ticket_id');
    await expect(browser.rows).toHaveCount(2);

    // Text the bar cannot read says why, and the list keeps the last search.
    await browser.payloadFilter.fill('payload.ticket-id = 5');
    await expect(browser.payloadFilterError).toContainText('path segment "ticket-id"');
    await expect(browser.rows).toHaveCount(2);
    await expect(page).toHaveURL(/payload=payload\.resolution/);
  });
});
