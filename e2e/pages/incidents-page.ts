/** Incident triage as an operator sees it: filters, the incident table and the detail panel. */
import type { Locator, Page } from '@playwright/test';

export class IncidentsPage {
  readonly component: Locator;
  readonly mcpOnly: Locator;
  readonly stateFilter: Locator;
  readonly tableScroll: Locator;
  readonly rows: Locator;
  readonly detail: Locator;
  readonly logRecords: Locator;
  /** The detail panel's parts. */
  readonly summary: Locator;
  readonly statePanel: Locator;
  readonly stateNow: Locator;
  readonly note: Locator;
  readonly acknowledge: Locator;
  readonly resolve: Locator;
  readonly activity: Locator;
  readonly recovery: Locator;
  readonly redrive: Locator;
  readonly breakdown: Locator;
  readonly samplePayload: Locator;
  readonly toolServerLink: Locator;
  readonly silenceIncident: Locator;
  /** The filters people change (look-back window, state, sort) and the summary the window changes. */
  readonly window: Locator;
  readonly state: Locator;
  readonly sort: Locator;

  constructor(readonly page: Page) {
    this.component = page.getByLabel('Component');
    this.mcpOnly = page.getByLabel('MCP only');
    this.stateFilter = page.getByTestId('incident-state-filter');
    this.rows = page.getByTestId('incident-row');
    this.tableScroll = page.locator('.table-scroll').filter({ has: page.getByRole('table', { name: 'Incidents' }) });
    this.detail = page.getByRole('complementary', { name: 'Incident details' });
    this.logRecords = this.detail.getByTestId('log-record');
    this.summary = this.detail.locator('dl.kv').first();
    this.statePanel = this.detail.getByTestId('incident-state-panel');
    this.stateNow = this.statePanel.getByTestId('incident-state-now');
    this.note = this.statePanel.getByTestId('incident-note');
    this.acknowledge = this.statePanel.getByTestId('incident-acknowledge');
    this.resolve = this.statePanel.getByTestId('incident-resolve');
    this.activity = this.statePanel.getByTestId('incident-activity');
    this.recovery = this.detail.getByTestId('incident-recovery');
    this.redrive = this.detail.getByTestId('incident-redrive');
    this.breakdown = this.detail.getByTestId('incident-breakdown');
    this.samplePayload = this.detail.getByTestId('incident-sample-payload');
    this.toolServerLink = this.detail.getByTestId('incident-tool-server');
    this.silenceIncident = this.detail.getByTestId('silence-incident');
    this.window = page.getByLabel('Look-back window');
    this.state = page.getByLabel('State');
    this.sort = page.getByLabel('Sort');
  }

  async goto(): Promise<void> {
    await this.page.goto('/incidents');
  }

  /** Opens an incident's detail through its row link. */
  async open(incidentId: string): Promise<void> {
    await this.rowLink(incidentId).click();
  }

  /** The row of one incident. */
  row(incidentId: string): Locator {
    return this.page.locator(`[data-testid="incident-row"][data-incident-id="${incidentId}"]`);
  }

  /** The link that opens an incident (what j/k move between and Enter follows). */
  rowLink(incidentId: string): Locator {
    return this.row(incidentId).getByRole('link').first();
  }

  /** A keyboard shortcut pressed on the page itself (j/k move between incidents, Enter opens). */
  async pressShortcut(key: string): Promise<void> {
    await this.page.locator('body').press(key);
  }

  /** The sample payload's summary line, which opens it. */
  samplePayloadToggle(): Locator {
    return this.samplePayload.locator('summary');
  }

  /** The state panel's activity entries, newest first. */
  activityEntries(): Locator {
    return this.activity.locator('li');
  }

  /** "n incidents in the last h h": the count line under the filters. */
  windowSummary(hours: number): Locator {
    return this.page.getByText(new RegExp(`incidents? in the last ${hours} h`));
  }

  stateOf(row: Locator): Locator {
    return row.getByTestId('incident-state');
  }

  deadLetterLink(deadLetterId: string): Locator {
    return this.detail.getByTestId('dead-letter-link').filter({ hasText: deadLetterId }).first();
  }
}
