/**
 * Single sign-on in Chromium against a real OpenID provider (oidc-provider, started here): the
 * reviewer and the operator sign in through the provider's own login form, land where they were
 * going with their name and role, and sign out of Switchboard and of the provider; a person outside
 * the required group is sent back to the sign-in with the reason.
 */
import type { Page } from '@playwright/test';
import { seriousViolations } from '../console-checks';
import { startOidcProvider, type TestOidcProvider } from '../oidc-provider';
import { expect, test } from '../fixtures';
import { SessionHeader } from '../pages/people-page';
import { ConsoleShell } from '../pages/shell-page';
import { IdentityProvider, SignInScreen } from '../pages/sign-in-page';
import { ServerProcess, freePort } from '../server-process';

let provider: TestOidcProvider;
let server: ServerProcess;

test.beforeAll(async () => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  provider = await startOidcProvider({ switchboardUrls: [url] });
  server = await ServerProcess.start({ port, env: { ...provider.switchboardEnv(url), SWITCHBOARD_DEMO: 'off' } });
});

test.afterAll(async () => {
  await server?.dispose();
  await provider?.close();
});

test.beforeEach(async ({ context }) => {
  // The provider's default pages import a web font; nothing here may wait on the internet.
  await context.route(/fonts\.googleapis\.com/, (route) => route.abort());
});

/** On the provider's own login page: any password is accepted, the login names the account. */
async function loginAtProvider(page: Page, login: string): Promise<void> {
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
  await new IdentityProvider(page).signInAs(login);
}

async function sessionIn(page: Page): Promise<{ status: number; body: { user?: { display_name: string; role: string }; token?: { name: string } } }> {
  return page.evaluate(async () => {
    const r = await fetch('/v1/auth/session', { credentials: 'same-origin' });
    return { status: r.status, body: r.status === 200 ? await r.json() : {} };
  });
}

for (const person of [
  { login: 'rita', name: 'Rita Reviewer', role: 'reviewer', path: '/mailbox' },
  { login: 'oscar', name: 'Oscar Operator', role: 'operator', path: '/incidents' },
]) {
  test(`the ${person.role} signs in through the provider's login form, then out of both`, async ({ page }) => {
    await page.goto(`${server.url}${person.path}`);
    const signIn = new SignInScreen(page);
    const sso = signIn.singleSignOn;
    await expect(sso).toBeVisible();
    // The token paste stays beside it.
    await expect(signIn.tokenInput).toBeVisible();
    await sso.click();

    await loginAtProvider(page, person.login);

    // Back where the visitor was going, signed in as the person with the role their group maps to.
    await expect(page).toHaveURL(`${server.url}${person.path}`);
    const shell = new ConsoleShell(page);
    await expect(shell.signOut).toBeVisible();
    const session = await sessionIn(page);
    expect(session.status).toBe(200);
    expect(session.body.user).toMatchObject({ display_name: person.name, role: person.role });
    const header = new SessionHeader(page);
    await expect(header.who).toContainText(person.name);
    await expect(header.role).toHaveText(person.role);

    // Sign-out ends the Switchboard session, then the provider's (its confirmation page), and comes back.
    await shell.signOut.click();
    await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/session/end`));
    await new IdentityProvider(page).confirmSignOut.click();
    await expect(page).toHaveURL(`${server.url}/`);
    await expect(sso).toBeVisible();
    expect((await sessionIn(page)).status).toBe(401);

    // The provider's session ended too: signing in again asks for the login once more.
    await sso.click();
    await expect(page).toHaveURL(new RegExp(`^${provider.issuer}/interaction/`));
    await expect(new IdentityProvider(page).login).toBeVisible();
  });
}

test('a person outside the required group is sent back to the sign-in with the reason', async ({ page }) => {
  await page.goto(`${server.url}/incidents`);
  const signIn = new SignInScreen(page);
  await signIn.singleSignOn.click();
  await loginAtProvider(page, 'mallory');

  await expect(signIn.error).toHaveText(/not allowed to use Switchboard/);
  // Still at the page she came for, without the reason in the address (a reload does not repeat it).
  await expect(page).toHaveURL(`${server.url}/incidents`);
  expect((await sessionIn(page)).status).toBe(401);
  // The sign-in card with the button and the reason is as accessible as the token-only one.
  expect(await seriousViolations(page)).toEqual([]);
});
