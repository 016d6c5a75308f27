/**
 * The HTTP client bench:pg and bench:list time pages with, in a process of its own (forked, one per
 * server): sequential calls over one keep-alive connection. It runs apart from the bench because
 * the bench's own process holds the filled stores, the other scenarios' results and autocannon:
 * its garbage collections landed inside the timed calls and made the p99 of the largest pages a
 * measure of the bench, not of the server.
 *
 * Each call is timed twice over, in separate passes:
 * - `wire`: as wrk and autocannon time a request, from writing its bytes on a socket to reading the
 *   answer's last byte. The request is serialized once; the answers are checked (status 200 and a
 *   JSON-RPC result) between calls, outside the timed spans. This is the verdict's figure.
 * - `node`: through Node's http client (bench/rpc-client.ts), to the answer parsed. Side by side
 *   on one server, that client adds a measurable share to a page's time (bench/README.md): its own
 *   request objects, response parsing and JSON.parse, and its process being scheduled again.
 *
 * Protocol (process messages): the parent sends a ListJob, the child answers with a ListTimes.
 */
import net from 'node:net';
import { RpcClient } from './rpc-client';

export interface ListJob {
  port: number;
  token: string;
  /** event.list unless given. */
  method?: string;
  params: unknown;
  warmup: number;
  requests: number;
}

export type ListTimes = { wire: number[]; node: number[] } | { error: string };

const HEADER_END = Buffer.from('\r\n\r\n');

/** One keep-alive HTTP/1.1 connection that sends one prepared request and reads whole answers. */
class WireClient {
  private readonly socket: net.Socket;
  private readonly ready: Promise<void>;
  private received: Buffer[] = [];
  private size = 0;
  private waiting: { resolve: (answer: Buffer) => void; reject: (error: Error) => void } | undefined;
  private failure: Error | undefined;

  constructor(readonly port: number) {
    this.socket = net.connect({ host: '127.0.0.1', port });
    this.socket.setNoDelay(true);
    this.ready = new Promise((resolve, reject) => {
      this.socket.once('connect', () => resolve());
      this.socket.once('error', reject);
    });
    this.socket.on('data', (chunk: Buffer) => this.take(chunk));
    const fail = (error: Error) => {
      this.failure = error;
      this.waiting?.reject(error);
      this.waiting = undefined;
    };
    this.socket.on('error', fail);
    this.socket.on('close', () => fail(new Error('the server closed the connection')));
  }

  /** Sends `request` and resolves with the whole answer (head and body) once its last byte is in. */
  async send(request: Buffer): Promise<Buffer> {
    await this.ready;
    if (this.failure) throw this.failure;
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(request);
    });
  }

  private take(chunk: Buffer): void {
    this.received.push(chunk);
    this.size += chunk.length;
    const answer = this.received.length === 1 ? chunk : Buffer.concat(this.received, this.size);
    const headEnd = answer.indexOf(HEADER_END);
    if (headEnd < 0) return;
    const head = answer.subarray(0, headEnd).toString('latin1');
    // The server sends its JSON answers whole, with their length; anything else fails the pass.
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!length) {
      this.waiting?.reject(new Error(`an answer without Content-Length: ${head.slice(0, 200)}`));
      this.waiting = undefined;
      this.received = [];
      this.size = 0;
      return;
    }
    if (answer.length < headEnd + HEADER_END.length + Number(length[1])) return;
    this.received = [];
    this.size = 0;
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve(answer);
  }

  close(): void {
    this.socket.destroy();
  }
}

/** The answer's status and body. */
function parseAnswer(answer: Buffer): { status: number; body: string } {
  const headEnd = answer.indexOf(HEADER_END);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer.subarray(0, headEnd).toString('latin1'))?.[1]);
  return { status, body: answer.subarray(headEnd + HEADER_END.length).toString('utf8') };
}

function checkAnswer(answer: Buffer, method: string): void {
  const { status, body } = parseAnswer(answer);
  const parsed = JSON.parse(body) as { result?: unknown; error?: { message: string } };
  if (status !== 200 || parsed.result === undefined) throw new Error(`${method}: HTTP ${status}: ${parsed.error?.message ?? body.slice(0, 200)}`);
}

let wire: WireClient | undefined;
let node: RpcClient | undefined;

async function timeWire(job: ListJob): Promise<number[]> {
  // A connection of its own per job: the last job's sat idle through the Node client's pass, long
  // enough for the server's keep-alive timeout to close it just as a request went out (ECONNRESET).
  wire?.close();
  wire = new WireClient(job.port);
  const method = job.method ?? 'event.list';
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: job.params });
  const request = Buffer.from(
    `POST /v1/rpc HTTP/1.1\r\nhost: 127.0.0.1:${job.port}\r\ncontent-type: application/json\r\nauthorization: Bearer ${job.token}\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`,
  );
  const times: number[] = [];
  for (let i = 0; i < job.warmup + job.requests; i++) {
    const t = performance.now();
    const answer = await wire.send(request);
    if (i >= job.warmup) times.push(performance.now() - t);
    checkAnswer(answer, method);
  }
  return times;
}

async function timeNode(job: ListJob): Promise<number[]> {
  // A fresh connection per job too, for the same reason as timeWire's.
  node?.close();
  node = new RpcClient(job.port, job.token, 1);
  const times: number[] = [];
  for (let i = 0; i < job.warmup + job.requests; i++) {
    const t = performance.now();
    await node.call(job.method ?? 'event.list', job.params);
    if (i >= job.warmup) times.push(performance.now() - t);
  }
  return times;
}

async function run(job: ListJob): Promise<ListTimes> {
  try {
    return { wire: await timeWire(job), node: await timeNode(job) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

process.on('message', (job: ListJob) => {
  void run(job).then((answer) => process.send!(answer));
});
process.on('disconnect', () => {
  wire?.close();
  node?.close();
  process.exit(0);
});
