/** The sign-in screen as a person meets it: paste a token, or go to single sign-on; and the provider's own login form. */
import type { Locator, Page } from '@playwright/test';

export class SignInScreen {
  readonly tokenInput: Locator;
  readonly signInButton: Locator;
  /** The refusal under the form (a wrong token, a person the provider may not let in). */
  readonly error: Locator;
  readonly singleSignOn: Locator;

  constructor(readonly page: Page) {
    this.tokenInput = page.getByLabel('Access token');
    this.signInButton = page.getByRole('button', { name: 'Sign in' });
    this.error = page.getByRole('alert');
    this.singleSignOn = page.getByRole('link', { name: 'Sign in with single sign-on' });
  }

  async goto(path = '/'): Promise<void> {
    await this.page.goto(path);
  }

  /** Pastes a token and presses "Sign in" (whether the server takes it is the caller's check). */
  async submit(token: string): Promise<void> {
    await this.tokenInput.fill(token);
    await this.signInButton.click();
  }
}

/** The identity provider's own pages (the test provider of oidc-provider.ts): its login form and its sign-out confirmation. */
export class IdentityProvider {
  readonly login: Locator;
  readonly password: Locator;
  readonly submit: Locator;
  readonly confirmSignOut: Locator;

  constructor(readonly page: Page) {
    this.login = page.locator('input[name="login"]');
    this.password = page.locator('input[name="password"]');
    this.submit = page.getByRole('button', { name: 'Sign-in' });
    this.confirmSignOut = page.getByRole('button', { name: 'Yes, sign me out' });
  }

  /** The test provider takes any password: the login alone says who signs in. */
  async signInAs(login: string): Promise<void> {
    await this.login.fill(login);
    await this.password.fill('any password');
    await this.submit.click();
  }
}
