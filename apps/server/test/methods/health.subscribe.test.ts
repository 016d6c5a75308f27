/**
 * health.subscribe: heartbeats with the health.check shape over /v1/ws. The transport's own checks
 * (intervals, backpressure, many sockets) are in ../websocket.test.ts and ../heartbeat-broadcast.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails, ok } from '../rpc-helpers';
import { RpcSocket, wsUrl } from '../ws-client';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

describe('health.subscribe', () => {
  it('answers a subscription id on a socket; a heartbeat for it follows', async () => {
    const socket = await RpcSocket.open(wsUrl(server.url), { headers: { authorization: `Bearer ${server.token}` } });
    try {
      const answer = await socket.call('health.subscribe', {});
      const id = answer.result!.subscription_id;
      expect(id).toEqual(expect.any(String));
      const [beat] = await socket.waitFor(() => (socket.heartbeats(id).length > 0 ? socket.heartbeats(id) : undefined));
      expect(beat!.params.result).toMatchObject({ ok: true, bundle: { fingerprint: server.runtime.bundle.fingerprint } });
    } finally {
      await socket.close();
    }
  });

  it('is refused over HTTP with INVALID_REQUEST: there is no socket to send heartbeats to', async () => {
    const error = await fails(server, 'health.subscribe', {}, 'INVALID_REQUEST');
    expect(error.message).toMatch(/only available on the WebSocket endpoint \/v1\/ws/);
    expect((await ok(server, 'health.ping', {})).ok).toBe(true);
  });
});
