/**
 * A webhook receiver for alert tests: a node http server that records each request (headers and
 * raw body) and answers with what the test sets, or holds the request open.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedRequest[];
  /** The status the next requests get (default 204); 'hang' never answers. */
  answer: number | 'hang';
  /** Answers this long after a request arrived (a slow receiver widens the window two senders could race in). */
  delayMs: number;
  /** Resolves once `n` requests (in all) have arrived. */
  waitForRequests(n: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(port = 0): Promise<WebhookReceiver> {
  const waiters = new Set<() => void>();
  const receiver: WebhookReceiver = {
    url: '',
    received: [],
    answer: 204,
    delayMs: 0,
    waitForRequests(n, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (receiver.received.length < n) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(receiver.received.slice());
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`waited ${timeoutMs} ms for ${n} webhook requests, got ${receiver.received.length}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      receiver.received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      for (const w of [...waiters]) w();
      const answer = receiver.answer;
      if (answer === 'hang') return;
      if (receiver.delayMs > 0) setTimeout(() => res.writeHead(answer).end(), receiver.delayMs);
      else res.writeHead(answer).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return receiver;
}
