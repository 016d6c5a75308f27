/**
 * Signing in as a person and the people screens: the header's name and role, actions a role
 * cannot take, and the Admin screen's users and tokens.
 */
import { expect, type Locator, type Page } from '@playwright/test';

/** The sign-in screen: paste a token, as a person does. */
export async function signInByPasting(page: Page, secret: string, path = '/'): Promise<void> {
  await page.goto(path);
  await page.getByLabel('Access token').fill(secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('session-user')).toBeVisible();
}

export class SessionHeader {
  readonly who: Locator;
  readonly name: Locator;
  readonly role: Locator;
  readonly nav: Locator;

  constructor(readonly page: Page) {
    this.who = page.getByTestId('session-user');
    this.name = this.who.locator('.session-name');
    this.role = page.getByTestId('session-role');
    this.nav = page.getByRole('navigation', { name: 'Main' });
  }

  navLink(name: string): Locator {
    return this.nav.getByRole('link', { name, exact: true });
  }
}

/**
 * An action as a role sees it: absent, or disabled and saying which role it needs. `expectRefused`
 * accepts either; `expectOffered` wants it enabled and without the note.
 */
export async function expectRefused(action: Locator, needs: 'needs operator' | 'needs admin' | 'needs reviewer'): Promise<void> {
  if ((await action.count()) === 0) return;
  await expect(action).toBeDisabled();
  await expect(action).toContainText(needs);
  await expect(action).toHaveAttribute('title', needs);
}

export async function expectOffered(action: Locator): Promise<void> {
  await expect(action).toBeVisible();
  await expect(action.getByTestId('needs-role')).toHaveCount(0);
}

export class AdminPage {
  readonly users: Locator;
  readonly tokens: Locator;
  readonly createToken: Locator;
  readonly dialog: Locator;
  readonly secret: Locator;
  readonly stored: Locator;
  /** What the screen says instead to a person who is not an admin. */
  readonly needsAdmin: Locator;

  constructor(readonly page: Page) {
    this.users = page.getByTestId('user-row');
    this.tokens = page.getByTestId('token-row');
    this.createToken = page.getByTestId('create-token');
    this.dialog = page.getByTestId('create-token-dialog');
    this.secret = page.getByTestId('token-secret');
    this.stored = page.getByTestId('secret-stored');
    this.needsAdmin = page.getByText('This screen needs admin');
  }

  async goto(): Promise<void> {
    await this.page.goto('/admin');
    await expect(this.users.first()).toBeVisible();
  }

  userRow(userId: string): Locator {
    return this.page.locator(`[data-testid="user-row"][data-user-id="${userId}"]`);
  }

  /** Opens "Create a token", picks the person and names the token; returns the secret shown. */
  async createTokenFor(userLabel: string, tokenName: string): Promise<string> {
    await this.createToken.click();
    await expect(this.dialog).toBeVisible();
    await this.dialog.getByLabel('For').selectOption({ label: userLabel });
    await this.dialog.getByLabel('Token name').fill(tokenName);
    await this.dialog.getByTestId('confirm-create-token').click();
    await expect(this.secret).toBeVisible();
    return (await this.secret.textContent())!.trim();
  }
}
