/**
 * runtime.incident_activity: who changed an incident's state, when, and with what note, oldest
 * first, on the control bundle (each charge.requested dead-letters at charge-card, one dispatcher
 * DEAD_LETTER record per publish). Regressions in the activity are in runtime.incident_update.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok, waitForQuiet } from '../control-helpers';
import { withControlServer } from './method-servers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});

describe('runtime.incident_activity', () => {
  it("lists an incident's state changes oldest first, with the actor's token and the note", async () => {
    await ok(server, 'event.publish', { event_name: 'charge.requested', payload: { activity: 1 } });
    await waitForQuiet(server);
    const { incidents } = await ok(server, 'runtime.incidents', { component: 'dispatcher', limit: 500 });
    const incident = incidents.find((i) => i.error_code === 'DEAD_LETTER')!;
    expect((await ok(server, 'runtime.incident_activity', { incident_id: incident.incident_id })).activity).toEqual([]);
    await ok(server, 'runtime.incident_update', { incident_id: incident.incident_id, state: 'acknowledged', note: 'on it' });
    await ok(server, 'runtime.incident_update', { incident_id: incident.incident_id, state: 'resolved' });
    const { activity } = await ok(server, 'runtime.incident_activity', { incident_id: incident.incident_id });
    const token = (await server.store.tokens.list())[0]!;
    expect(activity.map((a) => a.action)).toEqual(['acknowledged', 'resolved']);
    expect(activity[0]).toMatchObject({ note: 'on it', actor_token_id: token.id, actor_token_name: token.name });
    expect(activity[1]!.ts >= activity[0]!.ts).toBe(true);
  });

  it('NOT_FOUND for an unknown incident', async () => {
    await fails(server, 'runtime.incident_activity', { incident_id: 'inc_nope' }, 'NOT_FOUND');
  });
});
