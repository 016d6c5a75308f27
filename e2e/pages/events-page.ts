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
  /** The dead letter the URL points at, in the detail. */
  readonly currentDeadLetter: Locator;
  /** The run's summary above the table when filtered to one run. */
  readonly runSummary: Locator;
  /** Live tail's "N new events" bar: new rows wait behind it until it is clicked. */
  readonly newEventsBar: Locator;
  /** The name filter's suggestions (the catalog's names). */
  readonly nameSuggestions: Locator;
  /** The names of the loaded rows (the name column, by its class). */
  readonly nameCells: Locator;
  /** The dead-letter count column of the loaded rows (empty where an event has none). */
  readonly deadLetterCells: Locator;
  readonly downloadRaw: Locator;
  /** The table's scroll container and its "n loaded" count (the virtualised list). */
  readonly tableScroll: Locator;
  readonly loadedCount: Locator;
  /** The detail's run tree view and the button that shows it. */
  readonly runTreeToggle: Locator;
  readonly runTree: RunTree;
  /** The payload conditions field ("payload.ticket_id = T-1030"), its suggestions (the bundle's indexed fields) and what it says of text it cannot read. */
  readonly payloadFilter: Locator;
  readonly payloadSuggestions: Locator;
  readonly payloadFilterError: Locator;
  /** The note shown when no index serves the payload search. */
  readonly unindexedHint: Locator;
  /** The empty list's "Search further back" when a bounded search found nothing yet. */
  readonly searchFurther: Locator;

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
    this.currentDeadLetter = this.detail.locator('[data-testid="dead-letter"][aria-current="true"]');
    this.runSummary = page.getByRole('group', { name: 'Run summary' });
    this.newEventsBar = page.getByTestId('new-events');
    this.nameSuggestions = page.getByTestId('event-name-suggestions').locator('option');
    this.nameCells = this.rows.locator('td.c-name');
    this.deadLetterCells = this.rows.locator('td.c-dl');
    this.downloadRaw = page.getByRole('button', { name: 'Download raw' });
    this.tableScroll = page.getByTestId('event-table-scroll');
    this.loadedCount = page.getByTestId('loaded-count');
    this.runTreeToggle = page.getByTestId('run-tree-toggle');
    this.runTree = new RunTree(page.getByTestId('run-tree'));
    this.payloadFilter = page.getByRole('search').getByLabel('Payload', { exact: true });
    this.payloadSuggestions = page.getByTestId('payload-suggestions').locator('option');
    this.payloadFilterError = page.getByTestId('payload-filter-error');
    this.unindexedHint = page.getByTestId('payload-search-hint');
    this.searchFurther = page.getByTestId('search-further');
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

  /** A row's selection checkbox (its accessible name says which event). */
  rowCheckbox(row: Locator): Locator {
    return row.getByRole('checkbox');
  }

  /** Images with this source anywhere on the page (an injected `<img>` would be one). */
  imagesFrom(src: string): Locator {
    return this.page.locator(`img[src="${src}"]`);
  }

  /** The browser's message when there are no events at all. */
  noEventsYet(): Locator {
    return this.page.getByText('No events yet');
  }

  /** The Dead letters list's empty message when its filters match nothing. */
  noDeadLettersMatch(): Locator {
    return this.page.getByText('No events with dead letters match these filters');
  }

  /** A plain scroller the performance test lays over the table to compare against (it adds it itself). */
  baselineScroll(): Locator {
    return this.page.getByTestId('baseline-scroll');
  }

  /** A dead letter's or delivery's redrive history in the detail. */
  redriveHistory(): Locator {
    return this.detail.getByTestId('redrive-history');
  }

  /** A history's link to the operation that redrove it. */
  operationLink(history: Locator): Locator {
    return history.getByRole('link', { name: /^op_/ });
  }

  /** The detail's trace id, with its link to the tracing tool. */
  traceId(scope: Locator = this.detail): Locator {
    return scope.getByTestId('trace-id');
  }

  traceLink(scope: Locator): Locator {
    return scope.getByTestId('trace-link');
  }

  /** The first value of the detail's summary (the selected event's title). */
  detailTitle(): Locator {
    return this.detail.locator('.kv dd').first();
  }
}

/** The run tree: the run's events, deliveries, agent turns and mailbox items as one nested view. */
export class RunTree {
  readonly events: Locator;
  readonly deliveries: Locator;
  readonly turns: Locator;
  readonly mailboxItems: Locator;

  constructor(readonly root: Locator) {
    this.events = root.getByTestId('tree-event');
    this.deliveries = root.getByTestId('tree-delivery');
    this.turns = root.getByTestId('tree-turn');
    this.mailboxItems = root.getByTestId('tree-mailbox');
  }

  deliveriesWithStatus(status: string): Locator {
    return this.root.locator(`[data-testid="tree-delivery"][data-status="${status}"]`);
  }

  /** What a server emitted: the events nested under it. */
  eventsUnder(node: Locator): Locator {
    return node.getByTestId('tree-event');
  }

  link(name: string): Locator {
    return this.root.getByRole('link', { name });
  }
}
