import { expect, test } from '../fixtures';
import { ConsoleShell } from '../pages/shell-page';
import { SignInScreen } from '../pages/sign-in-page';

test.describe('sign-in', () => {
  test('a wrong token is refused with a clear message; the bootstrap token signs in; sign-out returns to sign-in', async ({ page, server }) => {
    const signIn = new SignInScreen(page);
    const shell = new ConsoleShell(page);
    await signIn.goto('/events?dead=1');
    const tokenInput = signIn.tokenInput;
    await expect(tokenInput).toBeVisible();

    await signIn.submit('sbk_this_is_not_a_real_token');
    await expect(signIn.error).toContainText('That token was not accepted');
    await expect(tokenInput).toHaveAttribute('aria-invalid', 'true');

    await signIn.submit(server.token);
    // The deep link survives sign-in.
    await expect(shell.pageHeading('Events')).toBeVisible();
    await expect(page).toHaveURL(/\/events\?dead=1$/);
    await expect(shell.heartbeat).toContainText('Healthy');

    // The session lives in an httpOnly cookie: scripts cannot read it.
    expect(await page.evaluate(() => document.cookie)).not.toContain('sb_session');
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'sb_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    await shell.signOut.click();
    await expect(signIn.tokenInput).toBeVisible();
    await page.reload();
    await expect(signIn.tokenInput).toBeVisible();
  });
});
