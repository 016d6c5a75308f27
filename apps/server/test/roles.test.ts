/**
 * Issue 37 acceptance: every method of the contract × every role, and narrowed tokens, against a
 * real server holding what the demo scenario produced. An allowed call succeeds with params built
 * from that state; a refused one is FORBIDDEN (naming the scope and the caller's role) and leaves
 * every table as it was. A method added to the contract without a case here fails the test.
 * Runs on the test engine (SQLite, or PostgreSQL with SWITCHBOARD_TEST_DATABASE_URL).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runDemoScenario } from '@switchboard/runtime';
import { methodNames, methods, type MethodName, type ParamsInput, type Role, type Scope } from '@switchboard/contract';
import { databaseOf, snapshotDifferences, snapshotTables, type TableSnapshot } from '@switchboard/store/testing';
import { ok, waitForQuiet } from './control-helpers';
import { startTestServer, type RpcAnswer, type TestServer } from './harness';
import { expectRpcError } from './rpc-helpers';
import { RpcSocket, tryOpen, wsUrl } from './ws-client';

/**
 * Who calls, and what each may do, written out from the role table rather than derived
 * from the code under test. `narrowed` is the token's own scope list.
 */
interface PrincipalSpec {
  role: Role;
  narrowed?: Scope[];
  may: Scope[];
}

const VIEWER: Scope[] = ['read', 'heartbeat', 'metrics', 'audit:read'];
const REVIEWER: Scope[] = [...VIEWER, 'mailbox:decide'];
const OPERATOR: Scope[] = [...REVIEWER, 'events:publish', 'runtime:pause', 'events:redrive', 'incidents:write', 'tool_servers:faults', 'alerts:write'];
const ADMIN: Scope[] = [...OPERATOR, 'runtime:reset', 'users:admin'];

const roleTable: Record<Role, Scope[]> = { viewer: VIEWER, reviewer: REVIEWER, operator: OPERATOR, admin: ADMIN };

const principals = {
  viewer: { role: 'viewer', may: VIEWER },
  reviewer: { role: 'reviewer', may: REVIEWER },
  operator: { role: 'operator', may: OPERATOR },
  admin: { role: 'admin', may: ADMIN },
  /** A service account that only publishes. */
  publisher: { role: 'operator', narrowed: ['events:publish'], may: ['events:publish'] },
  /** A metrics scraper that only reads. */
  scraper: { role: 'operator', narrowed: ['read'], may: ['read'] },
  /** Asks for scopes its viewer role lacks: it gets none of them. */
  overreach: { role: 'viewer', narrowed: ['read', 'events:publish', 'runtime:reset', 'users:admin'], may: ['read'] },
} satisfies Record<string, PrincipalSpec>;

type PrincipalName = keyof typeof principals;
const principalNames = Object.keys(principals) as PrincipalName[];

interface Caller {
  name: PrincipalName;
  spec: PrincipalSpec;
  userId: string;
  secret: string;
}

/** One method's valid call: params from the server's real state; `after` restores shared state whatever the outcome. */
interface HttpCase<M extends MethodName> {
  params(caller: Caller): Promise<ParamsInput<M>> | ParamsInput<M>;
  after?(): Promise<void>;
}

/** A WebSocket-only method: the call made on an open socket of the caller's. */
interface SocketCase {
  viaSocket(socket: RpcSocket): Promise<RpcAnswer<unknown>>;
}

type SocketMethod = 'health.subscribe' | 'health.unsubscribe';
type Cases = { [M in MethodName]: M extends SocketMethod ? SocketCase : HttpCase<M> };

let server: TestServer;
const callers = {} as Record<PrincipalName, Caller>;

/** Ids from the demo state that read calls point at. */
const seen = {
  incidentId: '',
  eventId: '',
  runId: '',
  agentId: '',
  sessionId: '',
  operationId: '',
  toolServer: '',
  toolServerFaults: 'off' as 'on' | 'off',
  rejectCode: '',
  scratchUserId: '',
  destinationId: '',
  ruleId: '',
};

/** Receives test notices (and resent ones) so none stays pending across a snapshot. */
let receiver: Server;
let receiverUrl = '';

/** Waits until the sender has delivered every notice: a notice in flight moves rows under a snapshot. */
async function noticesSettled(): Promise<void> {
  await vi.waitFor(async () => expect((await ok(admin(), 'alert.notices', { status: 'pending', limit: 1 })).items).toEqual([]), { timeout: 20_000, interval: 20 });
}

async function newDestination(what: string): Promise<string> {
  return (await ok(admin(), 'alert.destination_create', { name: unique(what), kind: 'webhook', url: receiverUrl })).destination.id;
}

/** A notice whose retries ran out, written as the sender leaves one. */
async function failedNotice(): Promise<string> {
  const id = unique('ntc_roles');
  const now = new Date().toISOString();
  await databaseOf(server.store)
    .insertInto('alert_notices')
    .values({
      id, rule_id: null, rule_name: null, destination_id: seen.destinationId, destination_name: 'roles receiver', kind: 'webhook', transition: 'test',
      subject_type: 'destination', subject_id: seen.destinationId, title: 'a failed test notice', link: null, body: '{}', status: 'failed', attempts: 3,
      next_attempt_at: null, lease_owner: null, lease_until: null, last_error: 'HTTP 500', created_at: now, delivered_at: null, dedupe_key: null,
    })
    .execute();
  return id;
}

const admin = () => server;
let sequence = 0;
const unique = (what: string) => `${what}-${process.pid}-${++sequence}`;

async function pendingItem(): Promise<string> {
  const { items } = await ok(admin(), 'mailbox.list', { filter: { status: 'pending', type: 'refund_approval' }, limit: 1 });
  if (!items[0]) throw new Error('the demo state ran out of pending refund approvals');
  return items[0].mailbox_id;
}

/** A support ticket of the demo bundle's shape: the publish starts a real run. */
function newTicket() {
  const ticketId = unique('ROLES');
  return {
    event_name: 'ticket.created',
    entity_id: `ticket-${ticketId}`,
    payload: { ticket_id: ticketId, order_id: 'ORD-4821', customer: 'Amara Okafor', subject: 'Where is my parcel?', body: 'Tracking has not moved.', channel: 'chat', priority: 'normal' },
  };
}

const cases: Cases = {
  'health.ping': { params: () => ({}) },
  'health.check': { params: () => ({}) },
  'health.subscribe': { viaSocket: (socket) => socket.call('health.subscribe', {}) },
  'health.unsubscribe': {
    async viaSocket(socket) {
      const subscribed = await socket.call('health.subscribe', {});
      if (subscribed.error) return subscribed;
      return socket.call('health.unsubscribe', { subscription_id: subscribed.result.subscription_id });
    },
  },
  'rpc.discover': { params: () => ({}) },
  'runtime.incidents': { params: () => ({ limit: 5 }) },
  'runtime.incident_logs': { params: () => ({ incident_id: seen.incidentId, limit: 5 }) },
  'runtime.incident_update': { params: (c) => ({ incident_id: seen.incidentId, state: 'acknowledged', note: `looked at by ${c.name}` }) },
  'runtime.incident_activity': { params: () => ({ incident_id: seen.incidentId }) },
  'runtime.status': { params: () => ({}) },
  'runtime.pause': {
    params: (c) => ({ reason: `paused by ${c.name}` }),
    after: async () => void (await ok(admin(), 'runtime.resume', {})),
  },
  'runtime.resume': {
    params: async () => {
      await ok(admin(), 'runtime.pause', { reason: 'to be resumed' });
      return {};
    },
    after: async () => void (await ok(admin(), 'runtime.resume', {})),
  },
  'runtime.nuke': { params: () => ({ dry_run: true }) },
  'runtime.resets': { params: () => ({ limit: 5 }) },
  'runtime.retention': { params: () => ({}) },
  'runtime.retention_run': { params: () => ({ dry_run: true }) },
  'runtime.queue': { params: () => ({ limit: 5 }) },
  'runtime.lookup': { params: () => ({ id: seen.eventId }) },
  'runtime.catalog': { params: () => ({}) },
  'event.list': { params: () => ({ limit: 5 }) },
  'event.publish': { params: () => newTicket() },
  'run.start': { params: () => newTicket() },
  'run.get': { params: () => ({ run_id: seen.runId }) },
  'run.tree': { params: () => ({ run_id: seen.runId }) },
  'mailbox.list': { params: () => ({ limit: 5 }) },
  'mailbox.get': { params: async () => ({ mailbox_id: await pendingItem() }) },
  'mailbox.reject': { params: async (c) => ({ mailbox_id: await pendingItem(), reason: `rejected by ${c.name}`, reason_code: seen.rejectCode }) },
  'mailbox.approve': { params: async (c) => ({ mailbox_id: await pendingItem(), reason: `approved by ${c.name}`, override_note: 'roles matrix: approved whatever the gates say' }) },
  'mailbox.reject_reasons': { params: () => ({ type: 'refund_approval' }) },
  'agent.list': { params: () => ({ limit: 5 }) },
  'agent.get': { params: () => ({ agent_id: seen.agentId }) },
  'conversation.list': { params: () => ({ limit: 5 }) },
  'conversation.get': { params: () => ({ session_id: seen.sessionId }) },
  'event.redrive': { params: () => ({ dry_run: true }) },
  'event.replay': { params: () => ({ dry_run: true, event_ids: [seen.eventId] }) },
  'event.replays': { params: () => ({ event_id: seen.eventId }) },
  'operation.get': { params: () => ({ operation_id: seen.operationId }) },
  'operation.list': { params: () => ({ limit: 5 }) },
  'operation.cancel': { params: () => ({ operation_id: seen.operationId }) },
  'runtime.tool_servers': { params: () => ({}) },
  // Sets the faults to what they are: allowed, and the demo keeps behaving as it did.
  'runtime.set_tool_server_faults': { params: () => ({ tool_server: seen.toolServer, faults: seen.toolServerFaults }) },
  'user.list': { params: () => ({}) },
  'user.create': { params: (c) => ({ display_name: unique(`made by ${c.name}`), role: 'viewer' }) },
  'user.update': { params: (c) => ({ user_id: seen.scratchUserId, display_name: unique(`renamed by ${c.name}`) }) },
  'token.list': { params: () => ({}) },
  'token.create': { params: (c) => ({ user_id: seen.scratchUserId, name: unique(`made by ${c.name}`) }) },
  'audit.list': { params: () => ({ limit: 5 }) },
  'token.revoke': {
    params: async () => {
      const { token } = await ok(admin(), 'token.create', { user_id: seen.scratchUserId, name: unique('to revoke') });
      return { token_id: token.id };
    },
  },
  'alert.rules': { params: () => ({}) },
  'alert.rule_create': { params: (c) => ({ name: unique(`rule by ${c.name}`), when: { trigger: 'reset.applied' }, destination_ids: [seen.destinationId] }) },
  'alert.rule_update': { params: (c) => ({ rule_id: seen.ruleId, name: unique(`renamed by ${c.name}`) }) },
  'alert.rule_delete': {
    params: async () => {
      const { rule } = await ok(admin(), 'alert.rule_create', { name: unique('rule to delete'), when: { trigger: 'server.dead' }, destination_ids: [seen.destinationId] });
      return { rule_id: rule.id };
    },
  },
  'alert.destinations': { params: () => ({}) },
  'alert.destination_create': { params: (c) => ({ name: unique(`destination by ${c.name}`), kind: 'webhook', url: receiverUrl }) },
  'alert.destination_delete': { params: async () => ({ destination_id: await newDestination('destination to delete') }) },
  'alert.test': { params: () => ({ destination_id: seen.destinationId }), after: noticesSettled },
  'alert.notices': { params: () => ({ limit: 5 }) },
  'alert.notice_resend': { params: async () => ({ notice_id: await failedNotice() }), after: noticesSettled },
  'alert.silences': { params: () => ({ include_ended: true }) },
  'alert.silence_create': { params: (c) => ({ rule_id: seen.ruleId, until: new Date(Date.now() + 3_600_000).toISOString(), reason: `silenced by ${c.name}` }) },
  'alert.silence_end': {
    params: async () => {
      const { silence } = await ok(admin(), 'alert.silence_create', { rule_id: seen.ruleId, until: new Date(Date.now() + 3_600_000).toISOString(), reason: 'to be ended' });
      return { silence_id: silence.id };
    },
  },
  'view.list': { params: () => ({ list: 'events' }) },
  'view.create': { params: (c) => ({ list: 'events', name: unique(`view by ${c.name}`), filters: { event_name: 'ticket' } }) },
  'view.update': { params: async (c) => ({ view_id: await viewOwnedBy(c), name: unique(`renamed by ${c.name}`) }) },
  'view.delete': { params: async (c) => ({ view_id: await viewOwnedBy(c) }) },
};

/** A saved view of the caller's own (only its owner may change it); an unknown id for a caller who may not save one. */
async function viewOwnedBy(caller: Caller): Promise<string> {
  const created = await server.rpc('view.create', { list: 'incidents', name: unique(`view of ${caller.name}`), filters: { state: 'open' } }, { token: caller.secret });
  return created.result?.view.id ?? 'view_never_made';
}

/** Creates each principal through the API, as the server's admin token: a user of its role and a (narrowed) token. */
async function createCallers(target: TestServer): Promise<Record<PrincipalName, Caller>> {
  const out = {} as Record<PrincipalName, Caller>;
  for (const name of principalNames) {
    const spec: PrincipalSpec = principals[name];
    const { user } = await ok(target, 'user.create', { display_name: `${name} person`, role: spec.role });
    const { secret } = await ok(target, 'token.create', { user_id: user.id, name: `${name} token`, ...(spec.narrowed ? { scopes: spec.narrowed } : {}) });
    out[name] = { name, spec, userId: user.id, secret: secret! };
  }
  return out;
}

/** Checks the refusal every cell of the matrix and every extra test expects. */
function expectForbidden(answer: unknown, method: MethodName, caller: Caller): void {
  expectRpcError(answer, 'FORBIDDEN');
  const { error } = answer as { error: { code: number; data: { retryable: boolean; details: Record<string, unknown> } } };
  expect(error.code).toBe(-32003);
  expect(error.data.retryable).toBe(false);
  const scope = methods[method].scope;
  const needsRole = (Object.keys(roleTable) as Role[]).find((role) => roleTable[role].includes(scope));
  expect(error.data.details).toMatchObject({ required_scope: scope, role: caller.spec.role, needs_role: needsRole });
}

async function quietSnapshot(): Promise<TableSnapshot> {
  await waitForQuiet(server);
  return snapshotTables(server.store);
}

beforeAll(async () => {
  server = await startTestServer();
  await runDemoScenario(server.runtime, { tickets: 24, leavePending: 50 });
  Object.assign(callers, await createCallers(server));

  seen.incidentId = (await ok(server, 'runtime.incidents', { limit: 1 })).incidents[0]!.incident_id;
  const published = await ok(server, 'event.publish', newTicket());
  seen.eventId = published.event_id!;
  seen.runId = published.run_id;
  seen.agentId = (await ok(server, 'agent.list', {})).agents[0]!.agent_id;
  seen.sessionId = (await ok(server, 'conversation.list', {})).conversations[0]!.session_id;
  const tools = (await ok(server, 'runtime.tool_servers', {})).tool_servers[0]!;
  seen.toolServer = tools.name;
  seen.toolServerFaults = tools.faults;
  seen.rejectCode = (await ok(server, 'mailbox.reject_reasons', { type: 'refund_approval' })).reasons[0]!.code;
  seen.scratchUserId = (await ok(server, 'user.create', { display_name: 'scratch person', role: 'viewer' })).user.id;
  receiver = createServer((_req, res) => res.writeHead(204).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  seen.destinationId = await newDestination('roles receiver');
  seen.ruleId = (await ok(server, 'alert.rule_create', { name: 'roles rule', when: { trigger: 'reset.applied' }, destination_ids: [seen.destinationId] })).rule.id;
  await waitForQuiet(server);
  const plan = await ok(server, 'event.replay', { dry_run: true, event_ids: [seen.eventId] });
  seen.operationId = (await ok(server, 'event.replay', { dry_run: false, event_ids: [seen.eventId], expected_plan_hash: plan.plan.plan_hash })).operation!.operation_id;
  // Settled (every replayed delivery's outcome known), so that it moves no row under a snapshot.
  await vi.waitFor(
    async () => {
      const { operation } = await ok(server, 'operation.get', { operation_id: seen.operationId });
      expect({ running: operation.status === 'running', pending: operation.outcomes.pending }, 'the replay to settle').toEqual({ running: false, pending: 0 });
    },
    { timeout: 20_000, interval: 20 },
  );
}, 180_000);

afterAll(async () => {
  await server?.close();
  receiver?.close();
});

describe('every method × every principal', () => {
  it('has a case for every method of the contract, over the WebSocket exactly for the WebSocket-only ones', () => {
    expect(Object.keys(cases).sort()).toEqual([...methodNames].sort());
    for (const method of methodNames) expect({ method, socket: 'viaSocket' in cases[method] }).toEqual({ method, socket: methods[method].websocketOnly === true });
  });

  it('gives each principal exactly the scopes of its role, narrowed by its token', async () => {
    for (const caller of Object.values(callers)) {
      const res = await fetch(server.url + '/v1/auth/session', { headers: { authorization: `Bearer ${caller.secret}` } });
      const session = (await res.json()) as { user: { role: string }; scopes: string[] };
      expect({ name: caller.name, role: session.user.role, scopes: [...session.scopes].sort() }).toEqual({ name: caller.name, role: caller.spec.role, scopes: [...caller.spec.may].sort() });
    }
  });

  const outcomes: { method: string; principal: string; allowed: boolean }[] = [];

  it.each(methodNames)('%s: allowed callers succeed, refused ones get FORBIDDEN and change nothing', async (method) => {
    const testCase = cases[method] as HttpCase<MethodName> | SocketCase;
    for (const name of principalNames) {
      const caller = callers[name];
      const allowed = caller.spec.may.includes(methods[method].scope);
      outcomes.push({ method, principal: name, allowed });
      if ('viaSocket' in testCase) {
        await socketCell(method, testCase, caller, allowed);
        continue;
      }
      const params = await testCase.params(caller);
      try {
        if (allowed) {
          const answer = await server.rpc(method, params, { token: caller.secret });
          expect({ method, principal: name, error: answer.error }).toEqual({ method, principal: name, error: undefined });
        } else {
          const before = await quietSnapshot();
          const answer = await server.rpc(method, params, { token: caller.secret });
          expectForbidden(answer, method, caller);
          const after = await snapshotTables(server.store);
          expect({ method, principal: name, changed: snapshotDifferences(before, after) }).toEqual({ method, principal: name, changed: [] });
        }
      } finally {
        await testCase.after?.();
      }
    }
  });

  it('covered the whole matrix', () => {
    expect(outcomes.length).toBe(methodNames.length * principalNames.length);
    const allowed = outcomes.filter((o) => o.allowed).length;
    // Printed for the report: how many cells of each kind this engine ran.
    console.info(`roles matrix: ${methodNames.length} methods × ${principalNames.length} principals = ${outcomes.length} cells (${allowed} allowed, ${outcomes.length - allowed} refused)`);
    // Every principal is refused somewhere and allowed somewhere (publisher: event.publish; scraper: reads).
    for (const name of principalNames) {
      expect(outcomes.some((o) => o.principal === name && o.allowed)).toBe(true);
      if (name !== 'admin') expect(outcomes.some((o) => o.principal === name && !o.allowed)).toBe(true);
    }
  });
});

async function socketCell(method: MethodName, testCase: SocketCase, caller: Caller, allowed: boolean): Promise<void> {
  const before = allowed ? undefined : await quietSnapshot();
  const opened = await tryOpen(wsUrl(server.url), { headers: { authorization: `Bearer ${caller.secret}` } });
  if (allowed) {
    if ('refused' in opened) throw new Error(`${method} as ${caller.name}: upgrade refused ${opened.refused.status} ${opened.refused.body}`);
    const socket = new RpcSocket(opened.socket);
    try {
      const answer = await testCase.viaSocket(socket);
      expect({ method, principal: caller.name, error: answer.error }).toEqual({ method, principal: caller.name, error: undefined });
    } finally {
      await socket.close();
    }
    return;
  }
  // Without the heartbeat scope the socket never opens, so no WebSocket method can be reached.
  if (!('refused' in opened)) {
    await new RpcSocket(opened.socket).close();
    throw new Error(`${method} as ${caller.name}: the upgrade was accepted without the heartbeat scope`);
  }
  expect(opened.refused.status).toBe(403);
  const body = JSON.parse(opened.refused.body) as { error: { data: { code: string; details: Record<string, unknown> } } };
  expect(body.error.data.code).toBe('FORBIDDEN');
  expect(body.error.data.details).toMatchObject({ required_scope: 'heartbeat', role: caller.spec.role });
  expect({ method, principal: caller.name, changed: snapshotDifferences(before!, await snapshotTables(server.store)) }).toEqual({ method, principal: caller.name, changed: [] });
}
