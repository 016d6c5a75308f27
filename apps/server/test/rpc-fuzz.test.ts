/** The JSON-RPC fuzz, bounded for CI (npm run fuzz:rpc runs 10,000 bodies). */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CONTROL_BUNDLE } from './control-helpers';
import { runRpcFuzz } from './fuzz/rpc-fuzz';
import { startTestServer, type TestServer } from './harness';

const SEED = 20261122;
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE, SWITCHBOARD_LOG_LEVEL: 'error' } });
});
afterAll(() => server.close());

it('1,000 generated bodies: no 5xx, always an envelope, never INTERNAL, never a stack trace', async () => {
  const findings = await runRpcFuzz({ url: server.url, token: server.token, count: 1_000, seed: SEED });
  expect(findings.examples).toEqual([]);
  expect(findings).toMatchObject({ sent: 1_000, http5xx: 0, notEnvelope: 0, internal: 0, stackTraces: 0 });
}, 120_000);
