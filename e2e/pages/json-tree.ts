/** The collapsible JSON view of a payload (event detail, transcript turns): toggles by key, rendered as text. */
import type { Locator } from '@playwright/test';

export class JsonTree {
  /** Elements a payload's markup would have made had the tree rendered it as HTML instead of text. */
  readonly markupElements: Locator;

  constructor(readonly root: Locator) {
    this.markupElements = root.locator('img, script');
  }

  /** A key's open/close button, or "Show 100 more" under a long array. */
  toggle(name: RegExp): Locator {
    return this.root.getByRole('button', { name });
  }
}
