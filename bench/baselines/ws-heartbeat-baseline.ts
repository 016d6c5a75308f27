/**
 * The ceiling for heartbeats: a bare `ws` server that, every interval, sends one pre-encoded frame
 * to every open client. No auth, no subscriptions, no health check: what a broadcast costs at least.
 */
import http from 'node:http';
import { WebSocketServer } from 'ws';

const intervalMs = Number(process.env.BASELINE_INTERVAL_MS ?? 1000);
const server = http.createServer((_req, res) => res.writeHead(404).end());
const wss = new WebSocketServer({ server, path: '/v1/ws' });
const frame = JSON.stringify({
  jsonrpc: '2.0',
  method: 'health.heartbeat',
  params: { subscription_id: 'sub_00000000-0000-0000-0000-000000000000', result: { ok: true, status: 'ok', ts: new Date().toISOString() } },
});
setInterval(() => {
  for (const ws of wss.clients) if (ws.readyState === ws.OPEN) ws.send(frame);
}, intervalMs);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : 0}`);
});
