/** A test server holding what the demo scenario produced through the real runtime, for the read-method tests. */
import { runDemoScenario } from '@switchboard/runtime';
import { startTestServer, type TestServer } from '../harness';

export async function startSeededServer(tickets: number): Promise<TestServer> {
  const server = await startTestServer();
  await runDemoScenario(server.runtime, { tickets });
  return server;
}
