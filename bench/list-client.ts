/**
 * The HTTP client bench:pg times event.list pages with, in a process of its own (forked, one per
 * server): sequential calls over one keep-alive socket, each timed from the request to the end of
 * its parsed answer. It runs apart from the bench because the bench's own process holds the filled
 * stores, the other scenarios' results and autocannon: its garbage collections landed inside the
 * timed calls and made the p99 of the largest pages a measure of the bench, not of the server.
 *
 * Protocol (process messages): the parent sends a ListJob, the child answers with a ListTimes.
 */
import http from 'node:http';

export interface ListJob {
  port: number;
  token: string;
  params: unknown;
  warmup: number;
  requests: number;
}

export type ListTimes = { times: number[] } | { error: string };

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

function call(job: ListJob, body: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: job.port,
        path: '/v1/rpc',
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${job.token}`, 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          try {
            const answer = JSON.parse(text) as { result?: unknown; error?: { message: string } };
            if (answer.result === undefined) reject(new Error(`event.list: ${answer.error?.message ?? `HTTP ${res.statusCode}`}`));
            else resolve();
          } catch {
            reject(new Error(`event.list: HTTP ${res.statusCode}: ${text.slice(0, 200)}`));
          }
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

async function run(job: ListJob): Promise<ListTimes> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'event.list', params: job.params });
  const times: number[] = [];
  try {
    for (let i = 0; i < job.warmup + job.requests; i++) {
      const t = performance.now();
      await call(job, body);
      if (i >= job.warmup) times.push(performance.now() - t);
    }
    return { times };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

process.on('message', (job: ListJob) => {
  void run(job).then((answer) => process.send!(answer));
});
process.on('disconnect', () => {
  agent.destroy();
  process.exit(0);
});
