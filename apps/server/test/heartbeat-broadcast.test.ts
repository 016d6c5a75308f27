/**
 * Heartbeats are one broadcast per process: every subscription of a tick carries the same
 * health.check result (computed once), and a subscriber that never reads costs bounded memory.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness';
import { RpcSocket, wsUrl } from './ws-client';

const HEARTBEAT_MS = 100;
const MAX_BUFFERED = 64 * 1024;
const SUBS_PER_SOCKET = 400;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({
    env: {
      SWITCHBOARD_HEARTBEAT_INTERVAL_MS: String(HEARTBEAT_MS),
      SWITCHBOARD_MAX_SUBSCRIPTIONS_PER_SOCKET: String(SUBS_PER_SOCKET),
      SWITCHBOARD_WS_MAX_BUFFERED_BYTES: String(MAX_BUFFERED),
    },
  });
});
afterAll(() => server.close());

const open = () => RpcSocket.open(wsUrl(server.url), { headers: { authorization: `Bearer ${server.token}` } });

it('all subscriptions on all sockets share one health check per tick', async () => {
  const sockets = await Promise.all([open(), open(), open()]);
  const ids: [RpcSocket, string][] = [];
  for (const s of sockets) for (let i = 0; i < 3; i++) ids.push([s, (await s.call('health.subscribe', {})).result!.subscription_id]);
  for (const [s, id] of ids) await s.waitFor(() => (s.heartbeats(id).length >= 6 ? true : undefined));
  const beats = ids.flatMap(([s, id]) => s.heartbeats(id));
  const perSubscription = Math.max(...ids.map(([s, id]) => s.heartbeats(id).length));
  const distinctChecks = new Set(beats.map((h) => h.params.result.ts as string)).size;
  // One check per tick plus at most one for each subscription's first beat; computed per
  // subscription it would be one per heartbeat (9 x 6 and more).
  expect(distinctChecks).toBeLessThanOrEqual(perSubscription + ids.length);
  expect(beats.length).toBeGreaterThanOrEqual(ids.length * 6);
  for (const s of sockets) await s.close();
});

it('a subscriber that never reads is skipped once behind: unsent heartbeats stay bounded', async () => {
  const quiet = await open();
  for (let i = 0; i < SUBS_PER_SOCKET; i++) await quiet.call('health.subscribe', {});
  // Stop reading at the TCP level.
  (quiet.socket as unknown as { _socket: import('node:net').Socket })._socket.pause();
  const watcher = await open();
  const watchId = (await watcher.call('health.subscribe', {})).result!.subscription_id as string;

  // Until the kernel's buffers are full nothing piles up on the server; then it starts skipping.
  let sawBehind = false;
  for (let ticks = 0; ticks < 400 && !sawBehind; ticks++) {
    const seen = watcher.heartbeats(watchId).length;
    await watcher.waitFor(() => (watcher.heartbeats(watchId).length > seen ? true : undefined));
    sawBehind = server.sockets.bufferedBytes() > MAX_BUFFERED;
  }
  expect(sawBehind).toBe(true);
  // Ten more ticks, each observed through the watcher: the quiet socket does not grow past one tick over the bound.
  const oneTick = SUBS_PER_SOCKET * 1_000;
  for (let ticks = 0; ticks < 10; ticks++) {
    const seen = watcher.heartbeats(watchId).length;
    await watcher.waitFor(() => (watcher.heartbeats(watchId).length > seen ? true : undefined));
    expect(server.sockets.bufferedBytes()).toBeLessThanOrEqual(MAX_BUFFERED + oneTick);
  }
  quiet.socket.terminate();
  await watcher.close();
}, 90_000);
