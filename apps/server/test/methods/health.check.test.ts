/** health.check: the store, the runtime's own checks, ingress, the bundle and the live server processes. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../rpc-helpers';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('health.check', () => {
  it('reports a healthy server: the store reachable, ingress open, the boot bundle and this process', async () => {
    const health = await ok(server, 'health.check', {});
    expect(health).toMatchObject({ ok: true, status: 'ok', ingress: 'open', bundle: { fingerprint: server.runtime.bundle.fingerprint } });
    expect(health.checks.store).toMatchObject({ ok: true });
    expect(health.servers.length).toBeGreaterThanOrEqual(1);
    expect(Object.values(health.checks).every((check) => check.ok)).toBe(true);
  });

  it('follows the ingress state: paused while paused', async () => {
    await ok(server, 'runtime.pause', { reason: 'health check test' });
    try {
      expect((await ok(server, 'health.check', {})).ingress).toBe('paused');
    } finally {
      await ok(server, 'runtime.resume', {});
    }
    expect((await ok(server, 'health.check', {})).ingress).toBe('open');
  });

  it('refuses params outside the contract with INVALID_PARAMS', async () => {
    await fails(server, 'health.check', { deep: true }, 'INVALID_PARAMS');
  });
});
