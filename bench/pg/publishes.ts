/** The publish scenario: durable event.publish over HTTP under autocannon, split across the servers. */
import http from 'node:http';
import autocannon from 'autocannon';
import { HTTP_CONNECTIONS, HTTP_WARMUP_SECONDS, SECONDS, TOKEN, count } from './settings';

export interface Publishes {
  rps: number;
  p99: number;
  /** Publishes answered with success (2xx). */
  answered: number;
  errors: number;
  perServer: number[];
}

export let publishCounter = 0;
export const publishBody = () => `{"jsonrpc":"2.0","id":${++publishCounter},"method":"event.publish","params":{"event_name":"work","payload":{"n":${publishCounter}}}}`;

/**
 * HTTP_WARMUP_SECONDS of the load untimed, then SECONDS timed: the timed figures, with `answered`
 * and `errors` counting both parts (every answer is checked, every publish is a stored event), and
 * the end of a round line (errors, the untimed rate).
 */
export async function warmHttpPublishes(ports: readonly number[]): Promise<{ publishes: Publishes; tail: string }> {
  const warmup = HTTP_WARMUP_SECONDS > 0 ? await httpPublishes(ports, HTTP_WARMUP_SECONDS) : undefined;
  const timed = await httpPublishes(ports);
  const publishes = { ...timed, answered: timed.answered + (warmup?.answered ?? 0), errors: timed.errors + (warmup?.errors ?? 0) };
  const tail = `${publishes.errors ? `, ${publishes.errors} ERRORS` : ''}${warmup ? `; the ${HTTP_WARMUP_SECONDS} s untimed before them ${count(warmup.rps)} events/s` : ''}`;
  return { publishes, tail };
}

export async function httpPublishes(ports: readonly number[], seconds = SECONDS): Promise<Publishes> {
  const connections = Math.floor(HTTP_CONNECTIONS / ports.length);
  const results = await Promise.all(
    ports.map((port) =>
      autocannon({
        url: `http://127.0.0.1:${port}/v1/rpc`,
        connections,
        duration: seconds,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
        requests: [{ setupRequest: (req) => ({ ...req, body: publishBody() }) }],
      }),
    ),
  );
  return {
    rps: results.reduce((sum, r) => sum + r.requests.average, 0),
    p99: Math.max(...results.map((r) => r.latency.p99)),
    answered: results.reduce((sum, r) => sum + r['2xx'], 0),
    errors: results.reduce((sum, r) => sum + r.errors + r.non2xx + r.timeouts, 0),
    perServer: results.map((r) => r.requests.average),
  };
}

/**
 * The load generator runs in this process, and its first run would also be its JIT's warm-up: a
 * side measured first in round 1 (PostgreSQL) would be measured with a colder generator than every
 * other. So it runs first, untimed, against an answering server of this process's own.
 */
export async function warmLoadGenerator(): Promise<number> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","id":1,"result":{}}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return (await httpPublishes([(server.address() as { port: number }).port], 3)).rps;
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
}
