/** The one destructive method never acts on an empty call: dry_run must be said explicitly. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CONTROL_BUNDLE, count, fails, ok } from '../control-helpers';
import { startTestServer, type TestServer } from '../harness';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
});
afterAll(() => server.close());

it('runtime.nuke {} is INVALID_PARAMS naming dry_run, and removes nothing', async () => {
  await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 1 } });
  const eventsBefore = await count(server, 'events');
  for (const params of [{}, { reason: 'cleanup' }, { expected_plan_hash: 'sha256:abc' }]) {
    const error = await fails(server, 'runtime.nuke', params, 'INVALID_PARAMS');
    expect(error.data.details.issues).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'dry_run', message: expect.stringMatching(/dry_run is required/) })]));
  }
  expect(await count(server, 'events')).toBe(eventsBefore);
  const auditRows = await count(server, 'resets');
  expect(auditRows).toBe(0);
});
