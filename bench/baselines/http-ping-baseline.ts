/**
 * The single-process ceiling for `health.ping` over HTTP: a bare node:http server doing what the
 * real server must do for it and nothing else: bearer check with a constant-time compare, JSON
 * parse, a jsonrpc/method check, dispatch, a JSON answer.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';

const token = process.env.BASELINE_TOKEN ?? '';
const expected = createHash('sha256').update(token).digest();
const port = Number(process.env.PORT ?? 0);

const handlers: Record<string, () => unknown> = { 'health.ping': () => ({ ok: true, ts: new Date().toISOString() }) };

function reply(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const presented = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    const digest = createHash('sha256').update(presented ?? '').digest();
    if (!presented || !timingSafeEqual(digest, expected)) return reply(res, 401, { jsonrpc: '2.0', id: null, error: { code: -32001, message: 'UNAUTHENTICATED' } });
    let request: { jsonrpc?: unknown; id?: unknown; method?: unknown };
    try {
      request = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return reply(res, 200, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'PARSE_ERROR' } });
    }
    const handler = request.jsonrpc === '2.0' && typeof request.method === 'string' ? handlers[request.method] : undefined;
    if (!handler) return reply(res, 200, { jsonrpc: '2.0', id: request.id ?? null, error: { code: -32601, message: 'METHOD_NOT_FOUND' } });
    reply(res, 200, { jsonrpc: '2.0', id: request.id ?? null, result: handler() });
  });
});
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${(server.address() as { port: number }).port}\n`));
