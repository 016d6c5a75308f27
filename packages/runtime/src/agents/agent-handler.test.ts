import http from 'node:http';
import { databaseOf } from '@switchboard/store/testing';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { bootFixture, minimalBundle, type Fixture } from '../testing/runtime-fixture';
import { runUntilIdle } from '../testing/run-until-idle';

let fx: Fixture | undefined;
afterEach(async () => {
  await fx?.close();
  fx = undefined;
});

const agent = (id: string, scope: string, script: unknown[], extra: Record<string, unknown> = {}) => ({
  agent_id: id,
  type: 'classifier',
  role: 'test agent',
  model_tier: 'small',
  conversation_mode: 'task',
  session_scope: scope,
  tools: ['lookup_order'],
  script,
  ...extra,
});

const answer = { reply: { action: 'none', summary: 'ok' } };

function agentBundle(agents: unknown[], subscribers: string[]) {
  return minimalBundle({
    events: {
      'ticket.created': {
        payload_schema: { type: 'object', properties: { order_id: { type: 'string' }, channel: { type: 'string' } } },
        subscribers: subscribers.map((id) => ({ type: 'agent', id })),
      },
      'refund.requested': { payload_schema: { type: 'object', required: ['amount'], properties: { amount: { type: 'number' } } }, subscribers: [] },
    },
    nodes: {},
    entity_types: {},
    agents,
    tool_servers: { 'mcp.orders': { protocol: 'mcp', tools: ['lookup_order'] } },
  });
}

describe('agents', () => {
  it('records turns in the session each scope selects: global, run and entity', async () => {
    fx = await bootFixture(agentBundle([agent('g', 'global', [answer]), agent('r', 'run', [answer]), agent('e', 'entity', [answer])], ['g', 'r', 'e']));
    const { runtime, store } = fx;
    const p1 = await runtime.publish({ event_name: 'ticket.created', payload: {}, entity_id: 'ent-1' });
    const p2 = await runtime.publish({ event_name: 'ticket.created', payload: {}, entity_id: 'ent-1' });
    const p3 = await runtime.publish({ event_name: 'ticket.created', payload: {}, entity_id: 'ent-2' });
    await runUntilIdle(runtime);
    const sessions = await databaseOf(store).selectFrom('conversations').selectAll().execute();
    const byAgent = (id: string) => sessions.filter((s) => s.agent_id === id);
    expect(byAgent('g')).toHaveLength(1);
    expect(byAgent('g')[0]).toMatchObject({ scope_key: 'global', turn_count: 3, status: 'active', run_id: null });
    expect(byAgent('r').map((s) => s.run_id).sort()).toEqual([p1.run_id, p2.run_id, p3.run_id].sort());
    expect(byAgent('r').every((s) => s.turn_count === 1 && s.status === 'ended')).toBe(true);
    expect(byAgent('e').map((s) => [s.scope_key, s.turn_count]).sort()).toEqual([
      ['entity:ent-1', 2],
      ['entity:ent-2', 1],
    ]);
    const agents = await databaseOf(store).selectFrom('agents').selectAll().orderBy('agent_id').execute();
    expect(agents.map((a) => a.status)).toEqual(['idle', 'idle', 'idle']);
    const e = agents.find((a) => a.agent_id === 'e')!;
    const lastTurn = await databaseOf(store).selectFrom('turns').selectAll().where('turn_id', '=', e.last_turn_id!).executeTakeFirstOrThrow();
    expect(lastTurn.session_id).toBe(e.current_session_id);
    const deliveries = await databaseOf(store).selectFrom('deliveries').selectAll().execute();
    expect(deliveries.every((d) => d.session_id !== null && d.status === 'delivered')).toBe(true);
  });

  it('runs tool calls, keeps them on the turn and emits the parsed answer', async () => {
    fx = await bootFixture(
      agentBundle(
        [
          agent('triage', 'global', [
            { tool_calls: [{ tool: 'lookup_order', arguments: { order_id: '$.order_id' } }], reply: { action: 'emit', payload: { amount: '$tools.lookup_order.total' } } },
          ], { emit: 'refund.requested' }),
        ],
        ['triage'],
      ),
    );
    const { runtime, store } = fx;
    await runtime.publish({ event_name: 'ticket.created', payload: { order_id: 'ORD-1' } });
    await runUntilIdle(runtime);
    const turn = await databaseOf(store).selectFrom('turns').selectAll().executeTakeFirstOrThrow();
    expect(turn.parse_ok).toBe(1);
    expect(turn.error).toBeNull();
    const calls = JSON.parse(turn.tool_calls!);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ tool: 'lookup_order', arguments: { order_id: 'ORD-1' }, result: { order_id: 'ORD-1' } });
    const blocks = JSON.parse(turn.turn_blocks!) as { type: string }[];
    expect(blocks.map((b) => b.type)).toEqual(['input', 'tool_use', 'tool_result', 'text', 'emit']);
    const emitted = await databaseOf(store).selectFrom('events').selectAll().where('event_name', '=', 'refund.requested').executeTakeFirstOrThrow();
    expect(JSON.parse(emitted.payload).amount).toBe(calls[0].result.total);
    expect(emitted.source).toBe('agent:triage');
  });

  it('a scripted model failure on attempt 1 is recorded and logged, then the retry succeeds', async () => {
    fx = await bootFixture(agentBundle([agent('a', 'global', [{ error: 'overloaded (529)', fail_attempts: [1], reply: { action: 'none' } }])], ['a']));
    const { runtime, store } = fx;
    await runtime.publish({ event_name: 'ticket.created', payload: {} });
    await runUntilIdle(runtime);
    const turns = await databaseOf(store).selectFrom('turns').selectAll().orderBy('turn_index').execute();
    expect(turns.map((t) => [t.parse_ok, t.error?.includes('overloaded') ?? false])).toEqual([
      [0, true],
      [1, false],
    ]);
    expect((await databaseOf(store).selectFrom('deliveries').selectAll().executeTakeFirstOrThrow())).toMatchObject({ status: 'delivered', attempts: 2, reason_code: 'model_error' });
    const logs = await databaseOf(store).selectFrom('logs').selectAll().where('component', '=', 'agent.a').execute();
    expect(logs.map((l) => l.error_code)).toEqual(['MODEL_UNAVAILABLE']);
  });

  it('unparseable output on every attempt ends in a dead letter; each turn has parse_ok false and the agent is in error', async () => {
    fx = await bootFixture(agentBundle([agent('a', 'run', [{ raw_output: 'I think maybe refund?' }])], ['a']));
    const { runtime, store } = fx;
    await runtime.publish({ event_name: 'ticket.created', payload: {} });
    await runUntilIdle(runtime);
    const turns = await databaseOf(store).selectFrom('turns').selectAll().execute();
    expect(turns).toHaveLength(3);
    expect(turns.every((t) => t.parse_ok === 0 && t.error!.startsWith('unparseable model output'))).toBe(true);
    const dl = await databaseOf(store).selectFrom('dead_letters').selectAll().executeTakeFirstOrThrow();
    expect(dl).toMatchObject({ failure_type: 'handler_error', reason_code: 'output_unparseable', handler_node: 'a', retry_count: 2 });
    expect((await databaseOf(store).selectFrom('agents').selectAll().executeTakeFirstOrThrow()).status).toBe('error');
    const warn = await databaseOf(store).selectFrom('logs').selectAll().where('error_code', '=', 'MODEL_OUTPUT_UNPARSEABLE').execute();
    expect(warn).toHaveLength(3);
  });

  it('the OpenAI-compatible provider talks to a chat completions server, including a tool round trip', async () => {
    const requests: { url?: string; auth?: string; body: any }[] = [];
    const server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const body = JSON.parse(raw);
        requests.push({ url: req.url, auth: req.headers.authorization, body });
        const hasToolResult = body.messages.some((m: { role: string }) => m.role === 'tool');
        const message = hasToolResult
          ? { role: 'assistant', content: JSON.stringify({ action: 'emit', payload: { amount: 12.5 }, summary: 'refund' }) }
          : { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup_order', arguments: '{"order_id":"ORD-7"}' } }] };
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ id: 'cmpl', model: 'fake-model', choices: [{ index: 0, message, finish_reason: hasToolResult ? 'stop' : 'tool_calls' }] }));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      fx = await bootFixture(agentBundle([agent('triage', 'global', [], { emit: 'refund.requested' })], ['triage']), {
        modelProvider: { kind: 'openai', baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-test', model: 'fake-model' },
      });
      const { runtime, store } = fx;
      await runtime.publish({ event_name: 'ticket.created', payload: { order_id: 'ORD-7' } });
      await runUntilIdle(runtime);
      expect(requests).toHaveLength(2);
      expect(requests[0]).toMatchObject({ url: '/v1/chat/completions', auth: 'Bearer sk-test', body: { model: 'fake-model' } });
      expect(requests[0]!.body.tools[0].function.name).toBe('lookup_order');
      expect(requests[1]!.body.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1' });
      const turn = await databaseOf(store).selectFrom('turns').selectAll().executeTakeFirstOrThrow();
      expect(turn.parse_ok).toBe(1);
      expect(JSON.parse(turn.tool_calls!)[0]).toMatchObject({ tool: 'lookup_order', arguments: { order_id: 'ORD-7' } });
      expect(JSON.parse(turn.response_payload!).model).toBe('fake-model');
      const emitted = await databaseOf(store).selectFrom('events').selectAll().where('event_name', '=', 'refund.requested').executeTakeFirstOrThrow();
      expect(JSON.parse(emitted.payload)).toEqual({ amount: 12.5 });
    } finally {
      server.close();
    }
  });

  it('the OpenAI-compatible provider turns HTTP errors into model errors on the turn', async () => {
    const server = http.createServer((_req, res) => {
      res.statusCode = 503;
      res.end('{"error":{"message":"overloaded"}}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      fx = await bootFixture(agentBundle([agent('a', 'global', [])], ['a']), { modelProvider: { kind: 'openai', baseUrl: `http://127.0.0.1:${port}` } });
      await fx.runtime.publish({ event_name: 'ticket.created', payload: {} });
      await runUntilIdle(fx.runtime);
      const turns = await databaseOf(fx.store).selectFrom('turns').selectAll().execute();
      expect(turns).toHaveLength(3);
      expect(turns[0]!.error).toContain('HTTP 503');
      expect(await databaseOf(fx.store).selectFrom('dead_letters').select('reason_code').executeTakeFirstOrThrow()).toEqual({ reason_code: 'model_error' });
    } finally {
      server.close();
    }
  });
});
