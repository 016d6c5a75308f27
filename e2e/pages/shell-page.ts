/** The frame around every screen as an operator sees it: the header's live parts and the page's width. */
import { expect, type Locator, type Page } from '@playwright/test';

export class ConsoleShell {
  readonly heading: Locator;
  readonly heartbeat: Locator;
  readonly runningOperations: Locator;
  readonly signOut: Locator;
  readonly ingressPausedNotice: Locator;
  readonly staleNotices: Locator;
  /** The heartbeat's details (shown on focus or hover), and their link to the servers. */
  readonly heartbeatDetails: Locator;
  readonly heartbeatNodesLink: Locator;
  /** Alerts anywhere on the screen (an error card, a refusal). */
  readonly alerts: Locator;
  /** The banner every screen shows after a reset, with its link to the past resets. */
  readonly resetNotice: Locator;
  readonly pastResetsLink: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { level: 1 });
    this.heartbeat = page.getByTestId('heartbeat');
    this.runningOperations = page.getByTestId('running-operations');
    this.signOut = page.getByRole('button', { name: 'Sign out' });
    this.ingressPausedNotice = page.getByTestId('ingress-paused-notice');
    this.staleNotices = page.getByTestId('stale-notice');
    this.heartbeatDetails = page.getByRole('tooltip');
    this.heartbeatNodesLink = page.getByTestId('heartbeat-servers');
    this.alerts = page.getByRole('alert');
    this.resetNotice = page.getByTestId('reset-notice');
    this.pastResetsLink = this.resetNotice.getByRole('link', { name: 'Past resets' });
  }

  /** The screen's title (the h1), by name. */
  pageHeading(name: string): Locator {
    return this.page.getByRole('heading', { level: 1, name });
  }

  /** Any heading with this name (a record's page titles itself with its id). */
  anyHeading(name: string): Locator {
    return this.page.getByRole('heading', { name });
  }

  /** A status message (a toast or an inline answer) that says this. */
  status(text: string): Locator {
    return this.page.getByRole('status').filter({ hasText: text });
  }

  /** Text anywhere on the screen: for an id a screen shows wherever its layout puts it. */
  text(text: string): Locator {
    return this.page.getByText(text);
  }

  /** How far the page is wider than the window (0 when nothing scrolls sideways). */
  horizontalOverflow(): Promise<number> {
    return this.page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  }

  /** The page does not scroll sideways, and the header's last control is inside the window. */
  async expectNoHorizontalScroll(what: string): Promise<void> {
    expect(await this.horizontalOverflow(), `${what}: page wider than the window`).toBeLessThanOrEqual(0);
    const box = await this.signOut.boundingBox();
    const width = this.page.viewportSize()!.width;
    expect(box, `${what}: Sign out visible`).not.toBeNull();
    expect(box!.x + box!.width, `${what}: Sign out inside the window`).toBeLessThanOrEqual(width);
  }
}

/** What an unknown address shows. */
export class NotFoundScreen {
  readonly heading: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Page not found' });
  }
}

/** The header's "go to id" field and the popover under it that answers a miss, an error or a token. */
export class GoToIdBox {
  readonly box: Locator;
  readonly answer: Locator;

  constructor(readonly page: Page) {
    this.box = page.getByRole('searchbox', { name: 'Go to id' });
    this.answer = page.getByTestId('goto-status');
  }

  async go(id: string): Promise<void> {
    await this.box.fill(id);
    await this.box.press('Enter');
  }
}

/** Who did something, as every screen labels it: the person's name (user and token ids on hover). */
export function actorLabels(scope: Locator): Locator {
  return scope.getByTestId('actor');
}

/** Collects console errors and CSP violations from the moment it is attached (before the first page load). */
export class ConsoleErrors {
  readonly errors: string[] = [];

  private constructor(readonly page: Page) {}

  static async attach(page: Page): Promise<ConsoleErrors> {
    const c = new ConsoleErrors(page);
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (e) => {
        console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`);
      });
    });
    page.on('console', (m) => {
      if (m.type() === 'error') c.errors.push(m.text());
    });
    page.on('pageerror', (e) => c.errors.push(`page error: ${e.message}`));
    return c;
  }

  /** Errors collected so far, and forgets them. */
  take(): string[] {
    return this.errors.splice(0);
  }
}
