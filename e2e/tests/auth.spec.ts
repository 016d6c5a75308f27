import { expect, test } from '../fixtures';

test.describe('sign-in', () => {
  test('a wrong token is refused with a clear message; the bootstrap token signs in; sign-out returns to sign-in', async ({ page, server }) => {
    await page.goto('/events?dead=1');
    const tokenInput = page.getByLabel('Access token');
    await expect(tokenInput).toBeVisible();

    await tokenInput.fill('sbk_this_is_not_a_real_token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toContainText('That token was not accepted');
    await expect(tokenInput).toHaveAttribute('aria-invalid', 'true');

    await tokenInput.fill(server.token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The deep link survives sign-in.
    await expect(page.getByRole('heading', { level: 1, name: 'Events' })).toBeVisible();
    await expect(page).toHaveURL(/\/events\?dead=1$/);
    await expect(page.getByTestId('heartbeat')).toContainText('Healthy');

    // The session lives in an httpOnly cookie: scripts cannot read it.
    expect(await page.evaluate(() => document.cookie)).not.toContain('sb_session');
    const cookies = await page.context().cookies();
    expect(cookies.find((c) => c.name === 'sb_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict' });

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByLabel('Access token')).toBeVisible();
    await page.reload();
    await expect(page.getByLabel('Access token')).toBeVisible();
  });
});
