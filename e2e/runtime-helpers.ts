/** Driving a test's own server through the API: waiting for quiet, and traffic that fails at the payments tool. */
import { expect, test } from './fixtures';
import { ServerProcess, type ServerOptions } from './server-process';

/**
 * A server of the test's own (a fresh data folder) whose demo scenario has run to its end. The
 * demo's last decision is its reject: once a rejected item exists and the runtime settled, the
 * demo publishes nothing more (a test that pauses ingress then sees only its own publishes queued).
 */
export async function startDemoServer(opts?: ServerOptions): Promise<ServerProcess> {
  const server = await ServerProcess.start(opts);
  await expect
    .poll(async () => (await server.rpc('mailbox.list', { filter: { status: 'rejected' }, limit: 1 })).items.length, { message: 'the demo to decide its mailbox items', timeout: 90_000 })
    .toBeGreaterThan(0);
  await settled(server);
  return server;
}

/**
 * A describe block of serial tests on a demo server of its own: started (demo decided and settled)
 * before the first test, `prepare` run on it, disposed after the last.
 */
export function ownDemoServer(prepare: (server: ServerProcess) => void | Promise<void>, timeoutMs = 150_000): void {
  let server: ServerProcess | undefined;
  test.describe.configure({ mode: 'serial', timeout: timeoutMs });
  test.beforeAll(async () => {
    test.setTimeout(timeoutMs);
    server = await startDemoServer();
    await prepare(server);
  });
  test.afterAll(async () => {
    await server?.dispose();
  });
}

/** Resolves once nothing is queued, running or waiting for delivery. */
export async function settled(server: ServerProcess): Promise<void> {
  await expect
    .poll(async () => {
      const s = await server.rpc('runtime.status');
      return { active_runs: s.active_runs, pending_deliveries: s.pending_deliveries, queue_depth: s.queue_depth };
    }, { message: 'the runtime to settle', timeout: 60_000 })
    .toEqual({ active_runs: 0, pending_deliveries: 0, queue_depth: 0 });
}

/**
 * Refund approvals published straight to the bus: each calls the flaky payments tool, whose faults
 * are fixed per call, so the same prefix always fails the same calls. Waits until they settled.
 */
export async function publishRefunds(server: ServerProcess, prefix: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    await server.rpc('event.publish', { event_name: 'refund.approved', payload: { ticket_id: `${prefix}-${i}`, order_id: `ORD-${prefix}-${i}`, amount: 10 + i, currency: 'EUR' } });
  }
  await settled(server);
}
