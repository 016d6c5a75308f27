/** A list screen's "Export" menu: the list as CSV or JSON Lines for the filters on screen. */
import fs from 'node:fs/promises';
import type { Locator, Page } from '@playwright/test';

export type ExportFormatLabel = 'CSV' | 'JSON Lines';

export class ExportMenu {
  readonly menu: Locator;
  readonly toggle: Locator;

  constructor(readonly page: Page) {
    this.menu = page.getByTestId('export-menu');
    this.toggle = this.menu.getByText('Export', { exact: true });
  }

  link(format: ExportFormatLabel): Locator {
    return this.menu.getByRole('link', { name: format, exact: true });
  }

  /** Opens the menu, picks the format and waits for the browser's download: its file name and text. */
  async download(format: ExportFormatLabel): Promise<{ fileName: string; text: string }> {
    await this.toggle.click();
    const [download] = await Promise.all([this.page.waitForEvent('download'), this.link(format).click()]);
    const file = await download.path();
    return { fileName: download.suggestedFilename(), text: await fs.readFile(file, 'utf8') };
  }
}
