/**
 * runtime.incident_update (and the activity it leaves, read through runtime.incident_activity), and
 * the states, regressions and sorts of runtime.incidents, on the control bundle: each charge.requested dead-letters at charge-card, so
 * every publish adds exactly one dispatcher DEAD_LETTER record.
 */
import { describe, expect, it } from 'vitest';
import type { Result } from '@switchboard/contract';
import type { TestServer } from '../harness';
import { fails, ok, waitForQuiet } from '../control-helpers';
import { keyMaker, withControlServer } from './method-servers';

const newKey = keyMaker('incident');
type Incident = Result<'runtime.incidents'>['incidents'][number];

async function charge(server: TestServer, n = 1): Promise<void> {
  for (let i = 0; i < n; i++) await ok(server, 'event.publish', { event_name: 'charge.requested', payload: { i } });
  await waitForQuiet(server);
}

async function incidents(server: TestServer, params: Parameters<typeof ok<'runtime.incidents'>>[2] = {}): Promise<Incident[]> {
  return (await ok(server, 'runtime.incidents', { limit: 500, ...params })).incidents;
}

async function deadLetterIncident(server: TestServer): Promise<Incident> {
  return (await incidents(server, { component: 'dispatcher' })).find((i) => i.error_code === 'DEAD_LETTER')!;
}

describe('incident lifecycle', () => {
  let server: TestServer;
  withControlServer((s) => {
    server = s as TestServer;
  });

  it('incidents start open with a trend; acknowledging records the token and note and filters by state', async () => {
    await charge(server, 2);
    const all = await incidents(server);
    expect(all.length).toBeGreaterThan(1);
    for (const i of all) {
      expect(i.state).toBe('open');
      expect(i.regressed).toBe(false);
      expect(typeof i.trend).toBe('number');
    }
    const dl = await deadLetterIncident(server);
    const key = newKey();
    const acked = await ok(server, 'runtime.incident_update', { incident_id: dl.incident_id, state: 'acknowledged', note: 'looking into the charge provider', idempotency_key: key });
    expect(acked).toMatchObject({ incident_id: dl.incident_id, state: 'acknowledged', regressed: false });
    const replayed = await ok(server, 'runtime.incident_update', { incident_id: dl.incident_id, state: 'acknowledged', note: 'looking into the charge provider', idempotency_key: key });
    expect(replayed).toEqual(acked);

    expect((await incidents(server, { states: ['acknowledged'] })).map((i) => i.incident_id)).toEqual([dl.incident_id]);
    expect((await incidents(server, { states: ['open'] })).map((i) => i.incident_id)).not.toContain(dl.incident_id);
    const after = await deadLetterIncident(server);
    expect(after).toMatchObject({ state: 'acknowledged', state_changed_by: expect.any(String), state_changed_at: acked.state_changed_at });
  });

  it('a resolved incident that occurs again is open and regressed, and its activity says so', async () => {
    const dl = await deadLetterIncident(server);
    await ok(server, 'runtime.incident_update', { incident_id: dl.incident_id, state: 'resolved', note: 'provider fixed' });
    expect((await deadLetterIncident(server)).state).toBe('resolved');
    expect((await incidents(server, { states: ['open'] })).map((i) => i.incident_id)).not.toContain(dl.incident_id);

    await charge(server);
    const regressed = await deadLetterIncident(server);
    expect(regressed).toMatchObject({ state: 'open', regressed: true });
    expect((await incidents(server, { states: ['regressed'] })).map((i) => i.incident_id)).toEqual([dl.incident_id]);
    expect((await incidents(server, { states: ['open'] })).map((i) => i.incident_id)).toContain(dl.incident_id);

    const { activity } = await ok(server, 'runtime.incident_activity', { incident_id: dl.incident_id });
    expect(activity.map((a) => a.action)).toEqual(['acknowledged', 'resolved', 'regressed']);
    const token = (await server.store.tokens.list())[0]!;
    expect(activity[0]).toMatchObject({ note: 'looking into the charge provider', actor_token_id: token.id, actor_token_name: token.name });
    expect(activity[1]!.note).toBe('provider fixed');
    expect(activity[2]!.actor_token_id).toBe('runtime');
    expect(activity[2]!.ts >= activity[1]!.ts).toBe(true);
  });

  it('ignored until N more occurrences stays ignored until the Nth, then is open (not regressed)', async () => {
    const dl = await deadLetterIncident(server);
    await ok(server, 'runtime.incident_update', { incident_id: dl.incident_id, state: 'ignored', ignore_occurrences: 2 });
    expect(await deadLetterIncident(server)).toMatchObject({ state: 'ignored', ignore_remaining: 2 });
    await charge(server);
    expect(await deadLetterIncident(server)).toMatchObject({ state: 'ignored', ignore_remaining: 1 });
    expect((await incidents(server, { states: ['open'] })).map((i) => i.incident_id)).not.toContain(dl.incident_id);
    await charge(server);
    expect(await deadLetterIncident(server)).toMatchObject({ state: 'open', regressed: false });
  });

  it('ignored until a time is open again once the time has passed', async () => {
    const dl = await deadLetterIncident(server);
    const until = new Date(Date.now() + 1500).toISOString();
    await ok(server, 'runtime.incident_update', { incident_id: dl.incident_id, state: 'ignored', ignore_until: until });
    expect(await deadLetterIncident(server)).toMatchObject({ state: 'ignored', ignore_until: until });
    await expect.poll(async () => (await deadLetterIncident(server)).state === 'open', { timeout: 10_000, message: 'the ignore to run out' }).toBe(true);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(until));
  });

  it('sorts by severity, count, first seen and trend', async () => {
    const bySeverity = await incidents(server, { sort: 'severity' });
    const ranks = { debug: 0, info: 1, warn: 2, error: 3, fatal: 4 } as const;
    for (let i = 1; i < bySeverity.length; i++) {
      const [a, b] = [bySeverity[i - 1]!, bySeverity[i]!];
      expect(ranks[a.level] > ranks[b.level] || (ranks[a.level] === ranks[b.level] && a.last_seen >= b.last_seen)).toBe(true);
    }
    const byCount = await incidents(server, { sort: 'count' });
    expect(byCount.map((i) => i.count)).toEqual([...byCount.map((i) => i.count)].sort((a, b) => b - a));
    const byFirst = await incidents(server, { sort: 'first_seen' });
    expect(byFirst.map((i) => i.first_seen)).toEqual([...byFirst.map((i) => i.first_seen)].sort().reverse());
    const byTrend = await incidents(server, { sort: 'trend' });
    expect(byTrend.map((i) => i.trend)).toEqual([...byTrend.map((i) => i.trend!)].sort((a, b) => b - a));
    // Pages of a non-default sort and state filter walk every incident once.
    const paged: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await ok(server, 'runtime.incidents', { sort: 'severity', states: ['open', 'acknowledged', 'resolved', 'ignored'], limit: 1, ...(cursor ? { cursor } : {}) });
      paged.push(...page.incidents.map((i) => i.incident_id));
      cursor = page.next_cursor;
    } while (cursor);
    expect(paged).toEqual(bySeverity.map((i) => i.incident_id));
  });

  it('refuses unknown incidents and ignore options on other states', async () => {
    const dl = await deadLetterIncident(server);
    await fails(server, 'runtime.incident_update', { incident_id: 'inc_nope', state: 'resolved' }, 'NOT_FOUND');
    await fails(server, 'runtime.incident_activity', { incident_id: 'inc_nope' }, 'NOT_FOUND');
    const bad = await fails(server, 'runtime.incident_update', { incident_id: dl.incident_id, state: 'resolved', ignore_occurrences: 3 }, 'INVALID_PARAMS');
    expect(bad.data.details.field).toBe('ignore_occurrences');
    await fails(server, 'runtime.incident_update', { incident_id: dl.incident_id, state: 'ignored', ignore_until: '2020-01-01T00:00:00Z' }, 'INVALID_PARAMS');
    await fails(server, 'runtime.incident_update', { incident_id: dl.incident_id, state: 'snoozed' }, 'INVALID_PARAMS');
  });
});
