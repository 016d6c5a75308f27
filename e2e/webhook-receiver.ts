/** A webhook receiver for the alerts tests: a plain node http server in the test process. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A webhook receiver on a free port: remembers every request and answers 204, or what `answer` says. */
export async function startWebhookReceiver(answer: () => number = () => 204) {
  const received: ReceivedRequest[] = [];
  const waiters: { id: string; resolve: (r: ReceivedRequest) => void }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const r = { headers: req.headers, body };
      received.push(r);
      for (const w of waiters.filter((w) => w.id === req.headers['webhook-id'])) w.resolve(r);
      res.writeHead(answer()).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/switchboard`,
    received,
    /** Resolves with the request carrying this webhook-id, already received or still to come. */
    request(id: string): Promise<ReceivedRequest> {
      const already = received.find((r) => r.headers['webhook-id'] === id);
      return already ? Promise.resolve(already) : new Promise((resolve) => waiters.push({ id, resolve }));
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
