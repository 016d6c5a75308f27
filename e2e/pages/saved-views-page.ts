/** Saved views on a list's filter bar: "Save view…", the "Views" menu and the dialogs they open. */
import type { Locator, Page } from '@playwright/test';

export class SavedViewsBar {
  /** "Views", or "View: <name>" when the list was opened from a saved view. */
  readonly toggle: Locator;
  readonly saveButton: Locator;
  readonly menu: Locator;
  /** The menu's two groups: my views and the views others shared. */
  readonly mine: Locator;
  readonly sharedByOthers: Locator;
  readonly emptyMenu: Locator;
  /** Shown when the link names a view that is gone or not shared with this person. */
  readonly missing: Locator;
  readonly updateWithCurrent: Locator;
  readonly dialog: ViewDialog;

  constructor(readonly page: Page) {
    this.toggle = page.getByTestId('views-toggle');
    this.saveButton = page.getByTestId('save-view');
    this.menu = page.getByTestId('views-menu');
    this.mine = this.menu.getByRole('heading', { name: 'My views' }).locator('+ ul').getByTestId('saved-view');
    this.sharedByOthers = this.menu.getByRole('heading', { name: 'Shared by others' }).locator('+ ul').getByTestId('saved-view');
    this.emptyMenu = this.menu.getByText(/^No saved views of/);
    this.missing = page.getByTestId('saved-view-missing');
    this.updateWithCurrent = this.menu.getByTestId('update-view-filters');
    this.dialog = new ViewDialog(page);
  }

  /** Saves the current filters under `name`, shared or not, and waits for the list to show it opened. */
  async save(name: string, options: { shared?: boolean } = {}): Promise<void> {
    await this.saveButton.click();
    await this.dialog.name.fill(name);
    await this.dialog.shared.setChecked(options.shared ?? false);
    await this.dialog.confirm.click();
  }

  async openMenu(): Promise<void> {
    if ((await this.toggle.getAttribute('aria-expanded')) !== 'true') await this.toggle.click();
  }

  /** One view's row in the open menu, by its name. */
  view(name: string): SavedViewRow {
    return new SavedViewRow(this.menu.getByTestId('saved-view').filter({ has: this.page.getByText(name, { exact: true }) }));
  }

  /** The view's id, from the URL of a list opened from it. */
  async openedViewId(): Promise<string | null> {
    return new URL(this.page.url()).searchParams.get('saved_view');
  }

  async rename(from: string, to: string, options: { shared?: boolean } = {}): Promise<void> {
    await this.openMenu();
    await this.view(from).edit.click();
    await this.dialog.name.fill(to);
    if (options.shared !== undefined) await this.dialog.shared.setChecked(options.shared);
    await this.dialog.confirm.click();
  }

  async delete(name: string): Promise<void> {
    await this.openMenu();
    await this.view(name).delete.click();
    await this.dialog.confirmDelete.click();
  }
}

export class SavedViewRow {
  readonly link: Locator;
  /** "private" or "shared" on my views, "by <owner>" on others'. */
  readonly meta: Locator;
  readonly edit: Locator;
  readonly delete: Locator;
  readonly copyLink: Locator;

  constructor(readonly root: Locator) {
    this.link = root.getByRole('link');
    this.meta = root.locator('.saved-view-meta');
    this.edit = root.getByTestId('edit-view');
    this.delete = root.getByTestId('delete-view');
    this.copyLink = root.getByRole('button', { name: /^Copy a link to/ });
  }
}

export class ViewDialog {
  readonly root: Locator;
  readonly name: Locator;
  readonly shared: Locator;
  readonly confirm: Locator;
  readonly confirmDelete: Locator;
  readonly error: Locator;

  constructor(page: Page) {
    this.root = page.getByTestId('view-dialog');
    this.name = this.root.getByTestId('view-name');
    this.shared = this.root.getByTestId('view-shared');
    this.confirm = this.root.getByTestId('confirm-view');
    this.confirmDelete = this.root.getByTestId('confirm-delete-view');
    this.error = this.root.getByRole('alert');
  }
}
