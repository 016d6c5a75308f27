/** health.unsubscribe: ends one heartbeat subscription of the socket that asks. */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../harness';
import { fails } from '../rpc-helpers';
import { RpcSocket, wsUrl } from '../ws-client';
import { withServer } from './method-servers';

let server: TestServer;
withServer((s) => {
  server = s;
});

const open = () => RpcSocket.open(wsUrl(server.url), { headers: { authorization: `Bearer ${server.token}` } });

describe('health.unsubscribe', () => {
  it('ends a subscription once: a second unsubscribe of it is NOT_FOUND', async () => {
    const socket = await open();
    try {
      const id = (await socket.call('health.subscribe', {})).result!.subscription_id;
      expect((await socket.call('health.unsubscribe', { subscription_id: id })).result).toEqual({ ok: true });
      const again = await socket.call('health.unsubscribe', { subscription_id: id });
      expect(again.error?.data.code).toBe('NOT_FOUND');
      expect(again.error?.data.details).toEqual({ resource: 'subscription', id });
    } finally {
      await socket.close();
    }
  });

  it("cannot end another socket's subscription: NOT_FOUND, and that socket keeps it", async () => {
    const [owner, other] = await Promise.all([open(), open()]);
    try {
      const id = (await owner.call('health.subscribe', {})).result!.subscription_id;
      expect((await other.call('health.unsubscribe', { subscription_id: id })).error?.data.code).toBe('NOT_FOUND');
      expect((await owner.call('health.unsubscribe', { subscription_id: id })).result).toEqual({ ok: true });
    } finally {
      await Promise.all([owner.close(), other.close()]);
    }
  });

  it('is refused over HTTP with INVALID_REQUEST', async () => {
    await fails(server, 'health.unsubscribe', { subscription_id: 'sub_x' }, 'INVALID_REQUEST');
  });
});
