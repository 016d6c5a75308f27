/** Agents and their conversations as an operator sees them: the list, an agent's page, a transcript. */
import type { Locator, Page } from '@playwright/test';

export class AgentsPage {
  readonly rows: Locator;

  constructor(readonly page: Page) {
    this.rows = page.getByTestId('agent-row');
  }

  async goto(): Promise<void> {
    await this.page.goto('/agents');
  }

  row(agentId: string): Locator {
    return this.rows.filter({ hasText: agentId });
  }
}

export class AgentPage {
  readonly currentSessionLink: Locator;
  readonly lastTurnLink: Locator;
  readonly sessions: Locator;

  constructor(readonly page: Page) {
    this.currentSessionLink = page.getByTestId('current-session-link');
    this.lastTurnLink = page.getByTestId('last-turn-link');
    this.sessions = page.getByRole('list', { name: 'Sessions' });
  }

  async goto(agentId: string): Promise<void> {
    await this.page.goto(`/agents/${encodeURIComponent(agentId)}`);
  }

  heading(agentId: string): Locator {
    return this.page.getByRole('heading', { name: agentId, level: 1 });
  }
}

export class ConversationsPage {
  readonly rows: Locator;

  constructor(readonly page: Page) {
    this.rows = page.getByTestId('conversation-row');
  }

  async goto(): Promise<void> {
    await this.page.goto('/conversations');
  }
}

export class TranscriptPage {
  readonly heading: Locator;
  readonly session: Locator;
  readonly turns: Locator;
  readonly toolCalls: Locator;
  readonly latencyStrip: Locator;
  readonly onlyFailedTurns: Locator;
  readonly highlightedTurn: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Conversation', level: 1 });
    this.session = page.getByRole('group', { name: 'Session' }).or(page.getByLabel('Session', { exact: true }));
    this.turns = page.getByTestId('turn');
    this.toolCalls = page.getByTestId('tool-call');
    this.latencyStrip = page.getByTestId('latency-strip');
    this.onlyFailedTurns = page.getByLabel(/Only failed turns/);
    this.highlightedTurn = page.locator('[data-testid="turn"].is-highlighted');
  }

  async goto(sessionId: string): Promise<void> {
    await this.page.goto(`/conversations/${encodeURIComponent(sessionId)}`);
  }

  /** A turn's collapsed request payload, opened. */
  async openRequestPayload(turn: Locator): Promise<void> {
    await turn.getByRole('button', { name: 'Request payload' }).click();
  }
}
