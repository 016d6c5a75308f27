import { expect, test } from '../fixtures';

/**
 * The console runs under its Content-Security-Policy (no inline styles or scripts, sockets only to
 * its own origin) without a single violation, and its live heartbeat still connects.
 */
test('every screen renders with no CSP violation, and the heartbeat socket is allowed', async ({ signedIn: page, server }) => {
  await page.addInitScript(() => {
    (window as unknown as { __cspViolations: string[] }).__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => {
      (window as unknown as { __cspViolations: string[] }).__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`);
    });
  });
  const consoleViolations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) consoleViolations.push(m.text());
  });

  const response = await page.goto(`${server.url}/incidents`);
  const csp = response!.headers()['content-security-policy']!;
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).toMatch(/connect-src 'self'(;|$)/);

  for (const screen of ['/incidents', '/events', '/dead-letters', '/mailbox', '/agents', '/conversations', '/runtime']) {
    await page.goto(server.url + screen);
    await expect(page.getByRole('heading', { level: 1 })).toBeVisible();
    await expect(page.getByTestId('heartbeat')).toContainText('Healthy');
    expect(await page.evaluate(() => (window as unknown as { __cspViolations: string[] }).__cspViolations), screen).toEqual([]);
  }
  expect(consoleViolations).toEqual([]);
});
