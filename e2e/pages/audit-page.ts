/** The Audit screen as an admin or viewer reads it: one row per recorded action, linked to its actor and targets. */
import type { Locator, Page } from '@playwright/test';

export class AuditPage {
  readonly rows: Locator;

  constructor(readonly page: Page) {
    this.rows = page.getByTestId('audit-row');
  }

  async goto(query = ''): Promise<void> {
    await this.page.goto(`/audit${query}`);
  }

  /** Rows of one method by one person (the actor's display name). */
  rowsOf(method: string, actorName: string): Locator {
    return this.rows.filter({ hasText: method }).filter({ hasText: actorName });
  }

  /** The row's actor, linked to the actor's other actions. */
  actorLink(row: Locator): Locator {
    return row.getByTestId('audit-actor-link');
  }

  /** The row's visible link to a target id (opens its record, as "go to id" does). */
  targetLink(row: Locator, id: string): Locator {
    return row.getByTestId('id-link').filter({ hasText: id, visible: true });
  }
}
