import { expect, test } from '../fixtures';
import type { Result } from '@switchboard/contract';
import type { RpcClient } from '../rpc-client';
import { seriousViolations, shotAtBothWidths } from '../console-checks';
import { AgentPage, AgentsPage, ConversationsPage, TranscriptPage } from '../pages/agents-page';
import { ConsoleShell } from '../pages/shell-page';

/** The demo's triage agent: a global session with tool calls and transcripts that fail to parse. */
async function triageSession(server: RpcClient) {
  let found: { sessionId: string; conv: Result<'conversation.get'> } | undefined;
  await expect(async () => {
    const { agents } = await server.rpc('agent.list', {});
    const session = agents.find((a) => a.agent_id === 'triage-agent')?.current_session_ref;
    expect(session, 'the triage agent to have a session').toBeTruthy();
    const conv = await server.rpc('conversation.get', { session_id: session!.session_id });
    expect(conv.turns.some((t) => (t.tool_calls?.length ?? 0) > 0), 'a turn with tool calls').toBe(true);
    expect(conv.turns.some((t) => !t.parse_ok && t.error?.includes('unparseable')), 'a turn that failed to parse').toBe(true);
    found = { sessionId: session!.session_id, conv };
  }).toPass({ timeout: 90_000 });
  return found!;
}

test.describe('agents and conversations', () => {
  test.describe.configure({ timeout: 120_000 });

  test('open an agent, follow its current session to the transcript: turns with tool calls, and a failed parse shown as such', async ({ signedIn: page, server }) => {
    const { sessionId, conv } = await triageSession(server);
    const agentCalls: string[] = [];
    page.on('request', (r) => {
      const body = r.postData();
      if (r.url().includes('/v1/rpc') && body) agentCalls.push(JSON.parse(body).method);
    });

    const agents = new AgentsPage(page);
    const agentPage = new AgentPage(page);
    const transcript = new TranscriptPage(page);
    await agents.goto();
    const row = agents.row('triage-agent');
    await expect(row).toBeVisible();
    await expect(row).toContainText('classifier');
    await expect(row).toContainText('small');
    await agents.agentLink(row, 'triage-agent').click();

    await expect(page).toHaveURL(/\/agents\/triage-agent$/);
    await expect(agentPage.heading('triage-agent')).toBeVisible();
    await expect(agentPage.description('Reads new tickets, looks up the order')).toBeVisible();
    const sessionLink = agentPage.currentSessionLink;
    await expect(sessionLink).toHaveText(sessionId);
    await sessionLink.click();

    await expect(page).toHaveURL(new RegExp(`/conversations/${sessionId}$`));
    await expect(transcript.heading).toBeVisible();
    await expect(transcript.session).toContainText('triage-agent');
    const turns = transcript.turns;
    await expect(turns.first()).toBeVisible();
    await expect(turns.first()).toContainText('Turn 0');
    // Tool calls with their arguments and results.
    const call = transcript.toolCalls.first();
    await expect(call).toBeVisible();
    await expect(call).toContainText('lookup_order');
    await expect(call).toContainText('Arguments');
    await expect(call).toContainText('order_id');
    await expect(call).toContainText('Result');
    // Trigger events link to the event browser.
    await expect(transcript.triggerEventLink(turns.first())).toHaveAttribute('href', /\/events\?/);
    await expect(transcript.latencyStrip).toContainText(`${conv.turns.length} turns`);

    // Failed parses: the filter keeps only them, each marked and with its error.
    await transcript.onlyFailedTurns.check();
    await expect(page).toHaveURL(/failed=1/);
    const failed = turns.filter({ hasText: 'unparseable model output' }).first();
    await expect(failed).toBeVisible();
    await expect(failed).toHaveAttribute('data-parse-ok', 'false');
    await expect(failed).toContainText('parse failed');
    await expect(transcript.turnError(failed)).toContainText('unparseable model output');
    for (const flag of await turns.evaluateAll((els) => els.map((e) => e.getAttribute('data-parse-ok')))) expect(flag).toBe('false');

    // Payloads are collapsed until asked for.
    await transcript.onlyFailedTurns.uncheck();
    const first = turns.first();
    await expect(transcript.jsonTree(first)).toHaveCount(0);
    await transcript.openRequestPayload(first);
    await expect(transcript.jsonTree(first)).toBeVisible();

    // Transcripts come from conversation.get; agent.* only gave references.
    expect(agentCalls).toContain('conversation.get');
    expect(agentCalls.filter((m) => m.startsWith('agent.'))).not.toHaveLength(0);
  });

  test('the last turn link opens the transcript at that turn', async ({ signedIn: page, server }) => {
    await triageSession(server);
    const lastTurn = async () => (await server.rpc('agent.get', { agent_id: 'triage-agent' })).last_turn_ref!.turn_id;
    const before = await lastTurn();
    const agentPage = new AgentPage(page);
    await agentPage.goto('triage-agent');
    await expect(agentPage.lastTurnLink).toHaveAttribute('href', /turn=/);
    const linked = new URL((await agentPage.lastTurnLink.getAttribute('href'))!, page.url()).searchParams.get('turn');
    // The demo keeps running: the page read the agent between these two calls, and a new turn may
    // have come in meanwhile.
    expect([before, await lastTurn()]).toContain(linked);
    await agentPage.lastTurnLink.click();
    await expect(page).toHaveURL(new RegExp(`turn=${linked}`));
    await expect(new TranscriptPage(page).highlightedTurn).toContainText(linked!);
  });

  test('an unknown agent and an unknown session say so', async ({ signedIn: page }) => {
    await page.goto('/agents/no-such-agent');
    await expect(new AgentsPage(page).unknownAgent('no-such-agent')).toBeVisible();
    await page.goto('/conversations/ses_missing');
    await expect(new TranscriptPage(page).unknownSession).toBeVisible();
  });

  test('axe: agents, agent page, conversations and a transcript; screenshots', async ({ signedIn: page, server }) => {
    const { sessionId } = await triageSession(server);
    const agents = new AgentsPage(page);
    const agentPage = new AgentPage(page);
    const conversations = new ConversationsPage(page);
    const transcript = new TranscriptPage(page);
    await agents.goto();
    await expect(agents.rows.first()).toBeVisible();
    await expect(new ConsoleShell(page).heartbeat).toContainText('Healthy');
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '30-agents');

    await agentPage.goto('triage-agent');
    await expect(agentPage.currentSessionLink).toBeVisible();
    await expect(agentPage.sessions).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '31-agent');

    await conversations.goto();
    await expect(conversations.rows.first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '32-conversations');

    await transcript.goto(sessionId);
    await expect(transcript.toolCalls.first()).toBeVisible();
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '33-transcript');
    await transcript.onlyFailedTurns.check();
    await expect(transcript.turnErrors.first()).toBeVisible();
    await transcript.openRequestPayload(transcript.turns.first());
    expect(await seriousViolations(page)).toEqual([]);
    await shotAtBothWidths(page, '34-transcript-failed-turns');
  });
});
