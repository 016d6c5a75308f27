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

  /** The row's link to the agent's page. */
  agentLink(row: Locator, agentId: string): Locator {
    return row.getByRole('link', { name: agentId });
  }

  /** What the list says for an agent id it does not know. */
  unknownAgent(agentId: string): Locator {
    return this.page.getByText(`No agent “${agentId}”`);
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

  /** Text of the agent's description (what it does, in the catalog's words). */
  description(text: string): Locator {
    return this.page.getByText(text);
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
  readonly turnErrors: Locator;
  /** What the page says for a session id it does not know. */
  readonly unknownSession: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { name: 'Conversation', level: 1 });
    this.session = page.getByRole('group', { name: 'Session' }).or(page.getByLabel('Session', { exact: true }));
    this.turns = page.getByTestId('turn');
    this.toolCalls = page.getByTestId('tool-call');
    this.latencyStrip = page.getByTestId('latency-strip');
    this.onlyFailedTurns = page.getByLabel(/Only failed turns/);
    this.highlightedTurn = page.locator('[data-testid="turn"].is-highlighted');
    this.turnErrors = page.getByTestId('turn-error');
    this.unknownSession = page.getByText('No conversation with this id');
  }

  async goto(sessionId: string): Promise<void> {
    await this.page.goto(`/conversations/${encodeURIComponent(sessionId)}`);
  }

  /** A turn's link to the event that triggered it, its parse error, and its payload's JSON tree. */
  triggerEventLink(turn: Locator): Locator {
    return turn.getByTestId('trigger-event-link');
  }

  turnError(turn: Locator): Locator {
    return turn.getByTestId('turn-error');
  }

  jsonTree(turn: Locator): Locator {
    return turn.getByTestId('json-tree');
  }

  /** A turn's collapsed request payload, opened. */
  async openRequestPayload(turn: Locator): Promise<void> {
    await turn.getByRole('button', { name: 'Request payload' }).click();
  }
}
