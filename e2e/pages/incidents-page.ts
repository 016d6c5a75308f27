/** Incident triage as an operator sees it: filters, the incident table and the detail panel. */
import type { Locator, Page } from '@playwright/test';

export class IncidentsPage {
  readonly component: Locator;
  readonly mcpOnly: Locator;
  readonly rows: Locator;
  readonly detail: Locator;
  readonly logRecords: Locator;

  constructor(readonly page: Page) {
    this.component = page.getByLabel('Component');
    this.mcpOnly = page.getByLabel('MCP only');
    this.rows = page.getByTestId('incident-row');
    this.detail = page.getByRole('complementary', { name: 'Incident details' });
    this.logRecords = this.detail.getByTestId('log-record');
  }

  async goto(): Promise<void> {
    await this.page.goto('/incidents');
  }

  /** Opens an incident's detail through its row link. */
  async open(incidentId: string): Promise<void> {
    await this.page.locator(`a[href*="selected=${encodeURIComponent(incidentId)}"]`).click();
  }

  deadLetterLink(deadLetterId: string): Locator {
    return this.detail.getByTestId('dead-letter-link').filter({ hasText: deadLetterId }).first();
  }
}
