/** health.ping: the cheapest authenticated call, answering the server's clock. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../rpc-helpers';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('health.ping', () => {
  it("answers ok with the server's time", async () => {
    const before = Date.now();
    const pong = await ok(server, 'health.ping', {});
    expect(pong.ok).toBe(true);
    expect(Date.parse(pong.ts)).toBeGreaterThanOrEqual(before - 1000);
  });

  it('refuses params outside the contract with INVALID_PARAMS', async () => {
    await fails(server, 'health.ping', { verbose: true }, 'INVALID_PARAMS');
  });
});
