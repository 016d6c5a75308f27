/**
 * The HTTP client bench:pg times event.list pages with, in a process of its own (forked, one per
 * server): sequential calls over one keep-alive socket, each timed from the request to the end of
 * its parsed answer. It runs apart from the bench because the bench's own process holds the filled
 * stores, the other scenarios' results and autocannon: its garbage collections landed inside the
 * timed calls and made the p99 of the largest pages a measure of the bench, not of the server.
 *
 * Protocol (process messages): the parent sends a ListJob, the child answers with a ListTimes.
 */
import { RpcClient } from './rpc-client';

export interface ListJob {
  port: number;
  token: string;
  params: unknown;
  warmup: number;
  requests: number;
}

export type ListTimes = { times: number[] } | { error: string };

let client: RpcClient | undefined;

async function run(job: ListJob): Promise<ListTimes> {
  if (client?.port !== job.port) {
    client?.close();
    client = new RpcClient(job.port, job.token, 1);
  }
  const times: number[] = [];
  try {
    for (let i = 0; i < job.warmup + job.requests; i++) {
      const t = performance.now();
      await client.call('event.list', job.params);
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
  client?.close();
  process.exit(0);
});
