/**
 * The demo scenario run through the real runtime, then checked through the API only: what an
 * operator sees on a fresh install must be real, linked records.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runDemoScenario } from '@switchboard/runtime';
import { startTestServer, type TestServer } from './harness';
import { ok } from './rpc-helpers';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
  await runDemoScenario(server.runtime, { tickets: 16 });
}, 120_000);

afterAll(async () => {
  await server?.close();
});

it('shows dead letters with failure type, retry count and handler node', async () => {
  const { events } = await ok(server, 'event.list', { filter: { has_dead_letter: true }, limit: 500 });
  expect(events.length).toBeGreaterThan(0);
  const letters = events.flatMap((e: any) => e.dead_letters);
  expect(letters.length).toBeGreaterThan(0);
  for (const l of letters) {
    expect(l.failure_type).toMatch(/^(handler_error|timeout|chain_depth_exceeded|unknown_subscriber)$/);
    expect(Number.isInteger(l.retry_count)).toBe(true);
    expect(typeof l.handler_node).toBe('string');
  }
  // The failed delivery is nested beside its dead letter.
  const e = events[0]!;
  expect(e.deliveries.some((d: any) => d.status === 'failed' && d.delivery_id === e.dead_letters[0]!.delivery_id)).toBe(true);
  const byReason = await ok(server, 'event.list', { filter: { reason_code: e.dead_letters[0]!.reason_code } });
  expect(byReason.events.map((x: any) => x.event_id)).toContain(e.event_id);
});

it('groups incidents by error code and component (and a dead letter\'s subscriber and reason), and mcp_only selects only MCP components', async () => {
  const { incidents } = await ok(server, 'runtime.incidents', { limit: 500 });
  const keys = incidents.map((i: any) => `${i.component}|${i.error_code ?? ''}|${i.subscriber_id ?? ''}|${i.reason_code ?? ''}`);
  expect(new Set(keys).size).toBe(keys.length);
  expect(incidents.some((i: any) => i.component.startsWith('mcp.'))).toBe(true);
  expect(incidents.some((i: any) => !i.component.startsWith('mcp.'))).toBe(true);
  const mcp = (await ok(server, 'runtime.incidents', { mcp_only: true, limit: 500 })).incidents;
  expect(mcp.length).toBeGreaterThan(0);
  expect(mcp.every((i: any) => i.component.startsWith('mcp.'))).toBe(true);
  expect(mcp.map((i: any) => i.incident_id).sort()).toEqual(incidents.filter((i: any) => i.component.startsWith('mcp.')).map((i: any) => i.incident_id).sort());
  for (const i of incidents) {
    expect(i.count).toBeGreaterThanOrEqual(i.sample_log_ids.length);
    expect(i.sample_log_ids.length).toBeGreaterThan(0);
    expect(i.first_seen <= i.last_seen).toBe(true);
  }
});

it('has a pending mailbox item whose decision sheet previews real downstream subscribers and the entity', async () => {
  const { items } = await ok(server, 'mailbox.list', { filter: { status: 'pending', type: 'refund_approval' } });
  expect(items.length).toBeGreaterThan(0);
  const { item, decision_sheet, history } = await ok(server, 'mailbox.get', { mailbox_id: items[0]!.mailbox_id });
  expect(item.status).toBe('pending');
  expect(history[0]).toMatchObject({ action: 'created' });
  const preview = decision_sheet.downstream_preview;
  expect(preview).toMatchObject({ available: true, subscriber_source: 'event_catalog' });
  expect(preview.subscribers.length).toBeGreaterThan(0);
  // The preview names the subscribers that real events of that name were delivered to.
  const { events } = await ok(server, 'event.list', { filter: { event_name: preview.event_name }, limit: 1 });
  expect(events.length).toBe(1);
  expect(events[0]!.deliveries.map((d: any) => d.subscriber_id).sort()).toEqual([...preview.subscribers].sort());
  const ctx = decision_sheet.entity_context;
  expect(ctx.available).toBe(true);
  expect(ctx.entity!.entity.entity_id).toBe(item.source_entity_id);
  expect(ctx.entity!.fields).toEqual(expect.any(Object));
  const entityEvents = await ok(server, 'event.list', { filter: { entity_id: item.source_entity_id } });
  expect(entityEvents.events.map((e: any) => e.event_id)).toContain(item.source_event_id);
});

it('has conversations whose turns carry latency, parse results and tool calls', async () => {
  const { conversations } = await ok(server, 'conversation.list', { limit: 500 });
  expect(conversations.length).toBeGreaterThan(0);
  const turns = [];
  for (const c of conversations) {
    const full = await ok(server, 'conversation.get', { session_id: c.session_id });
    expect(full.turns).toHaveLength(c.turn_count);
    turns.push(...full.turns);
  }
  expect(turns.every((t: any) => Number.isInteger(t.latency_ms) && t.latency_ms >= 0 && typeof t.parse_ok === 'boolean')).toBe(true);
  expect(turns.some((t: any) => t.parse_ok)).toBe(true);
  expect(turns.some((t: any) => !t.parse_ok && typeof t.error === 'string')).toBe(true);
  expect(turns.some((t: any) => Array.isArray(t.tool_calls) && t.tool_calls.length > 0 && t.tool_calls[0]!.tool)).toBe(true);
  const triggers = await ok(server, 'event.list', { filter: { event_id: turns[0]!.trigger_event_id } });
  expect(triggers.events[0]!.event_name).toBe(turns[0]!.trigger_event_type);
});

it('has an agent whose current session and last turn references point at real records', async () => {
  const { agents } = await ok(server, 'agent.list');
  const withRefs = agents.filter((a: any) => a.current_session_ref && a.last_turn_ref);
  expect(withRefs.length).toBeGreaterThan(0);
  for (const a of withRefs) {
    const { agent, current_session_ref, last_turn_ref } = await ok(server, 'agent.get', { agent_id: a.agent_id });
    expect(agent.agent_id).toBe(a.agent_id);
    const session = await ok(server, 'conversation.get', { session_id: current_session_ref!.session_id });
    expect(session.conversation.agent_id).toBe(a.agent_id);
    expect(session.conversation.started_at).toBe(current_session_ref!.started_at);
    const { conversations } = await ok(server, 'conversation.list', { filter: { agent_id: a.agent_id }, limit: 500 });
    const allTurns = [];
    for (const c of conversations) allTurns.push(...(await ok(server, 'conversation.get', { session_id: c.session_id })).turns);
    const last = allTurns.find((t: any) => t.turn_id === last_turn_ref!.turn_id);
    expect(last).toBeDefined();
    expect(last!.parse_ok).toBe(last_turn_ref!.parse_ok);
    expect(last!.completed_at).toBe(last_turn_ref!.completed_at);
  }
});
