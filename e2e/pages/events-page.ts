/** The event browser as an operator sees it: filters, the virtualised table and the detail panel. */
import type { Locator, Page } from '@playwright/test';

export class EventsPage {
  readonly rows: Locator;
  readonly detail: Locator;
  readonly jsonTree: Locator;
  readonly eventName: Locator;
  readonly entityId: Locator;
  readonly timeRange: Locator;
  readonly deadLetters: Locator;
  readonly moreFilters: Locator;
  /** The delivery the URL points at (a delivery id opened through go-to-id), in the detail. */
  readonly highlightedDelivery: Locator;
  /** The detail's event source, linked to what it names. */
  readonly sourceLink: Locator;
  /** "Replay all matching…" on Events, "Redrive…" on Dead letters: opens the recovery dialog. */
  readonly openRecovery: Locator;
  /** The detail's dead letters (one card per failed delivery) and deliveries. */
  readonly deadLetterCards: Locator;
  readonly deliveries: Locator;
  /** The empty table's message when the filters match nothing. */
  readonly noMatch: Locator;

  constructor(readonly page: Page) {
    this.rows = page.getByTestId('event-row');
    this.detail = page.getByRole('complementary', { name: 'Event details' });
    this.jsonTree = this.detail.getByTestId('json-tree');
    this.eventName = page.getByLabel('Event name');
    this.entityId = page.getByLabel('Entity id');
    this.timeRange = page.getByLabel('Time range');
    this.deadLetters = page.getByLabel('Dead letters');
    this.moreFilters = page.getByRole('button', { name: 'More filters' });
    this.openRecovery = page.getByTestId('open-recovery');
    this.highlightedDelivery = this.detail.locator('[data-testid="delivery"][aria-current="true"]');
    this.sourceLink = this.detail.getByTestId('source-link');
    this.deadLetterCards = this.detail.getByTestId('dead-letter');
    this.deliveries = this.detail.getByTestId('delivery');
    this.noMatch = page.getByText('No events match these filters');
  }

  async goto(query = ''): Promise<void> {
    await this.page.goto(`/events${query}`);
  }

  /** Opens the browser on one event with its detail shown. */
  async gotoEvent(eventId: string): Promise<void> {
    await this.goto(`?event_id=${eventId}&selected=${eventId}`);
  }

  /** The names column of the loaded rows, top to bottom. */
  rowNames(): Promise<string[]> {
    return this.rows.locator('td:nth-child(3)').allInnerTexts();
  }

  /** The detail's "Replay this event…" button. */
  replayButton(): Locator {
    return this.detail.getByTestId('replay-event');
  }

  /** The detail's "Replayed as" links (events replays published of the shown event). */
  replayedAs(): Locator {
    return this.detail.getByTestId('replayed-as-link');
  }

  /** The detail's "Replay of" link (on an event a replay published). */
  replayOf(): Locator {
    return this.detail.getByTestId('replay-of');
  }

  /** A row's "redriven" mark (dead letters list): all its dead letters, or "n/m", were redriven. */
  redrivenMark(row: Locator): Locator {
    return row.getByTestId('redriven-mark');
  }

  /** The first value of the detail's summary (the selected event's title). */
  detailTitle(): Locator {
    return this.detail.locator('.kv dd').first();
  }
}
