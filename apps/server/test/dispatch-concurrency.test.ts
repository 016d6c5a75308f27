/** SWITCHBOARD_DISPATCH_CONCURRENCY reaches the dispatcher: it bounds the handler slots a publish may take. */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './harness';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_DISPATCH_CONCURRENCY: '2' } });
});
afterAll(async () => {
  await server?.close();
});

test('a server started with SWITCHBOARD_DISPATCH_CONCURRENCY=2 has two handler slots', async () => {
  const { dispatcher } = server.runtime;
  await server.runtime.waitForIdle();
  const taken = dispatcher.reserve(10);
  dispatcher.runReserved(taken, []);
  expect(taken).toBe(2);
});
