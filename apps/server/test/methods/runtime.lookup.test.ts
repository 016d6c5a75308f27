/** runtime.lookup: every kind of id the console shows names its record, with what opens it. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../control-helpers';
import { withSeededServer } from './method-servers';

describe('runtime.lookup', () => {
  let server: TestServer;
  withSeededServer(12, (s) => {
    server = s as TestServer;
  });

  it('finds events, runs, entities, agents, sessions, mailbox items, turns, dead letters, deliveries, log records and operations', async () => {
    const { events } = await ok(server, 'event.list', { filter: { has_dead_letter: true }, limit: 1 });
    const event = events[0]!;
    const { items } = await ok(server, 'mailbox.list', { limit: 1 });
    const { agents } = await ok(server, 'agent.list', { limit: 1 });
    const { conversations } = await ok(server, 'conversation.list', { limit: 1 });
    const { turns } = await ok(server, 'conversation.get', { session_id: conversations[0]!.session_id });
    const { incidents } = await ok(server, 'runtime.incidents', { limit: 1 });
    const estimate = await ok(server, 'event.replay', { dry_run: true, event_ids: [event.event_id] });
    const replay = await ok(server, 'event.replay', { dry_run: false, event_ids: [event.event_id], expected_plan_hash: estimate.plan.plan_hash });

    const expectations: [string, Record<string, unknown>][] = [
      [event.event_id, { kind: 'event', event_id: event.event_id }],
      [event.run_id!, { kind: 'run' }],
      [event.entity_id!, { kind: 'entity' }],
      [agents[0]!.agent_id, { kind: 'agent' }],
      [conversations[0]!.session_id, { kind: 'session', session_id: conversations[0]!.session_id }],
      [items[0]!.mailbox_id, { kind: 'mailbox' }],
      [turns[0]!.turn_id, { kind: 'turn', session_id: conversations[0]!.session_id, event_id: turns[0]!.trigger_event_id }],
      [event.dead_letters[0]!.dead_letter_id, { kind: 'dead_letter', event_id: event.event_id }],
      [event.deliveries[0]!.delivery_id, { kind: 'delivery', event_id: event.event_id }],
      [incidents[0]!.sample_log_ids[0]!, { kind: 'log', incident_id: incidents[0]!.incident_id }],
      [replay.operation!.operation_id, { kind: 'operation' }],
    ];
    for (const [id, want] of expectations) {
      expect({ id, hit: await ok(server, 'runtime.lookup', { id }) }).toEqual({ id, hit: expect.objectContaining({ ...want, id }) });
    }
  });

  it('finds incidents, servers, tokens, and the kind:id sources the console shows', async () => {
    const { incidents } = await ok(server, 'runtime.incidents', { limit: 1 });
    const incident = incidents[0]!;
    const { servers } = await ok(server, 'health.check', {});
    const { events } = await ok(server, 'event.list', { limit: 500 });
    const byNode = events.find((e) => e.source.startsWith('node:'))!;
    const byMailbox = events.find((e) => e.source.startsWith('mailbox:'));
    const { agents } = await ok(server, 'agent.list', { limit: 1 });
    const { items } = await ok(server, 'mailbox.list', { limit: 1 });
    const token = await server.store.tokens.list();

    const expectations: [string, Record<string, unknown>][] = [
      [incident.incident_id, { kind: 'incident', id: incident.incident_id, incident_id: incident.incident_id }],
      [servers[0]!.server_id, { kind: 'server', id: servers[0]!.server_id }],
      [token[0]!.id, { kind: 'token', id: token[0]!.id, name: token[0]!.name }],
      [byNode.source, { kind: 'subscriber', id: byNode.source.slice('node:'.length) }],
      [`agent:${agents[0]!.agent_id}`, { kind: 'agent', id: agents[0]!.agent_id }],
      [`mailbox:${items[0]!.mailbox_id}`, { kind: 'mailbox', id: items[0]!.mailbox_id }],
      ...(byMailbox ? [[byMailbox.source, { kind: 'mailbox', id: byMailbox.source.slice('mailbox:'.length) }] as [string, Record<string, unknown>]] : []),
    ];
    for (const [id, want] of expectations) {
      expect({ id, hit: await ok(server, 'runtime.lookup', { id }) }).toEqual({ id, hit: expect.objectContaining(want) });
    }
    const { operations } = await ok(server, 'operation.list', { limit: 1 });
    if (operations[0]) expect(await ok(server, 'runtime.lookup', { id: `replay:${operations[0].operation_id}` })).toMatchObject({ kind: 'operation', id: operations[0].operation_id });
  });

  it("names a token's person, and a person by id: their id, display name and role, as they are now", async () => {
    const person = await server.store.users.create({ display_name: 'Rosa Reviewer', role: 'reviewer' });
    const { token } = await server.store.tokens.create('rosa-laptop', { userId: person.id });
    expect(await ok(server, 'runtime.lookup', { id: token.id })).toEqual({ kind: 'token', id: token.id, name: 'rosa-laptop', user_id: person.id, user_name: 'Rosa Reviewer', role: 'reviewer' });
    await server.store.users.update(person.id, { role: 'operator', display_name: 'Rosa Operator' });
    expect(await ok(server, 'runtime.lookup', { id: token.id })).toMatchObject({ user_name: 'Rosa Operator', role: 'operator' });
    expect(await ok(server, 'runtime.lookup', { id: person.id })).toEqual({ kind: 'user', id: person.id, user_id: person.id, user_name: 'Rosa Operator', role: 'operator' });
  });

  it('says NOT_FOUND for an incident id, a source or a token that names nothing', async () => {
    const unknownIncident = `inc_${Buffer.from(JSON.stringify(['no.such.component', 'NO_SUCH_CODE'])).toString('base64url')}`;
    for (const id of [unknownIncident, 'inc_not-base64-json', 'node:no-such-subscriber', 'agent:no-such-agent', 'mailbox:mbx_nothing', 'replay:op_nothing', 'webhook:abc', 'node:', 'tok_nothing']) {
      await fails(server, 'runtime.lookup', { id }, 'NOT_FOUND');
    }
    // A prefix names only its own kind: an agent id after "mailbox:" is not a mailbox item.
    const { agents } = await ok(server, 'agent.list', { limit: 1 });
    await fails(server, 'runtime.lookup', { id: `mailbox:${agents[0]!.agent_id}` }, 'NOT_FOUND');
  });

  it('says NOT_FOUND for an id nothing has, and refuses an empty one', async () => {
    const miss = await fails(server, 'runtime.lookup', { id: 'nothing_has_this_id' }, 'NOT_FOUND');
    expect(miss.data.details).toMatchObject({ id: 'nothing_has_this_id' });
    await fails(server, 'runtime.lookup', { id: '' }, 'INVALID_PARAMS');
  });
});
