/**
 * runtime.status, over HTTP against records the real runtime produced: demo tickets are published into
 * the support-desk bundle and processed by the dispatcher before anything is read.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { ok } from '../rpc-helpers';
import { withSeededServer } from './method-servers';

let server: TestServer;
withSeededServer(2, (s) => (server = s));

describe('runtime.status', () => {
  it('reports runtime status', async () => {
    await server.runtime.waitForIdle();
    const status = await ok(server, 'runtime.status', {});
    expect(status).toMatchObject({ name: 'support-desk', ingress: 'open', queue_depth: 0, pending_deliveries: 0, reset_in_progress: false });
    expect(status.bundle.fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});
