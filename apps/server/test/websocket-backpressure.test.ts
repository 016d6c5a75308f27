/**
 * A WebSocket client that sends requests but never reads the answers cannot make the server
 * buffer without bound: the server stops reading its requests once a bounded amount is unsent.
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { startTestServer, type TestServer } from './harness';
import { wsUrl } from './ws-client';

const MAX_BUFFERED = 256 * 1024;
const FRAMES = 40;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_WS_MAX_BUFFERED_BYTES: String(MAX_BUFFERED) } });
});
afterAll(() => server.close());

it('stops reading a never-reading socket: unsent answers stay bounded while it keeps sending', async () => {
  const socket = new WebSocket(wsUrl(server.url), { headers: { authorization: `Bearer ${server.token}` } });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  // Stop reading at the TCP level: everything the server sends piles up on its side.
  (socket as unknown as { _socket: import('node:net').Socket })._socket.pause();
  const batch = JSON.stringify(Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'rpc.discover' })));
  for (let i = 0; i < FRAMES; i++) socket.send(batch);

  const framesAnswered = () => server.logs.filter((l) => l.msg === 'ws frame').length;
  const paused = () => server.logs.some((l) => l.msg === 'ws reading paused');
  await expect.poll(() => paused() || framesAnswered() === FRAMES, { timeout: 60_000, message: 'the server to stop reading the socket or answer every frame' }).toBe(true);
  // Each frame's answer is about 7.5 MB; unbounded, the server would hold up to FRAMES of them.
  const oneAnswer = 100 * 80_000;
  expect(server.sockets.bufferedBytes()).toBeLessThanOrEqual(MAX_BUFFERED * 4 + oneAnswer);
  expect(paused()).toBe(true);
  expect(framesAnswered()).toBeLessThan(FRAMES);
  socket.terminate();
}, 60_000);
