/** The servers the method tests run against, started once per file and closed after it. */
import { afterAll, beforeAll } from 'vitest';
import { runDemoScenario } from '@switchboard/runtime';
import { CONTROL_BUNDLE } from '../control-helpers';
import { startTestServer, type TestServer } from '../harness';

/** One server for the file: `use` receives it before the first test; it is closed after the last. */
function serverForFile(start: () => Promise<TestServer>, use: (server: TestServer) => unknown): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await start();
    await use(server);
  }, 120_000);
  afterAll(async () => {
    await server?.close();
  });
}

/** A server holding what the demo scenario produced through the real runtime (`tickets` tickets), for the read methods. */
export function withSeededServer(tickets: number, use: (server: TestServer) => unknown): void {
  serverForFile(() => startSeededServer(tickets), use);
}

/** A server on the default bundle with nothing published yet, for the methods that read the bundle or the server itself. */
export function withServer(use: (server: TestServer) => unknown): void {
  serverForFile(() => startTestServer(), use);
}

/** A server on the control test bundle, for the mutating methods. */
export function withControlServer(use: (server: TestServer) => unknown): void {
  serverForFile(() => startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } }), use);
}

/** Idempotency keys unique to this run. */
export function keyMaker(prefix: string): () => string {
  let seq = 0;
  return () => `${prefix}-${Date.now()}-${++seq}`;
}

export async function startSeededServer(tickets: number): Promise<TestServer> {
  const server = await startTestServer();
  await runDemoScenario(server.runtime, { tickets });
  return server;
}
