/**
 * Reader threads: list pages read in worker threads, each with its own read-only connection to the
 * SQLite file, so that the console's reads use the machine's other cores instead of queueing
 * behind every request on the main thread (which runs all of its connection's statements).
 *
 * A thread reads, maps the rows and serializes the page; the main thread keeps authentication,
 * validation, the rate limit and the HTTP answer, and splices the page's JSON text into it. WAL
 * gives a thread's read the last committed state, so what a client was told is written (a publish
 * answered after its commit) is in its next page. Cursors are signed with the store's secret,
 * handed to each thread, so a cursor from a thread's page is valid on the main thread and back.
 */
import { Worker } from 'node:worker_threads';
import { RpcError, type Params } from '@switchboard/contract';
import type { Logger } from '../logger';
import { SerializedResult } from '../rpc/serialized-result';
import type { ReaderMessage, ReaderThreadData, ReadRequest } from './reader-thread-protocol';
import type { ThreadReadMethod } from './thread-read-method';

/** The thread's script: dist/reader-thread.mjs, beside the server's bundle (scripts/builds.mjs). */
const THREAD_SCRIPT = new URL('./reader-thread.mjs', import.meta.url);

/**
 * Whether this server runs from its build, where the threads' script is. Run from source (`npm run
 * dev:server`, in-process tests) a worker has no loader for TypeScript (tsx's does not reach worker
 * threads), so pages are read on the main thread there.
 */
export const readerThreadsBuilt = !import.meta.url.endsWith('.ts');

interface Pending {
  resolve: (json: string) => void;
  reject: (error: Error) => void;
}

class ReaderThread {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  /** Resolves once the thread opened its connection; rejects if it could not. */
  readonly ready: Promise<void>;
  stopped = false;

  constructor(script: URL, data: ReaderThreadData, onStop: (error: Error, failedReads: number) => void) {
    this.worker = new Worker(script, { workerData: data, name: 'switchboard-reader' });
    let started: () => void;
    let failed: (error: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    this.ready.catch(() => undefined);
    this.worker.on('message', (message: ReaderMessage) => {
      if ('ready' in message) return started();
      const waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if ('json' in message) waiting.resolve(message.json);
      else if ('rpcError' in message) waiting.reject(new RpcError(message.rpcError.code, message.rpcError.message, message.rpcError.details));
      else waiting.reject(Object.assign(new Error(message.failure.message), message.failure.code ? { code: message.failure.code } : {}));
    });
    const stop = (error: Error) => {
      if (this.stopped) return;
      this.stopped = true;
      failed(error);
      const failedReads = this.pending.size;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
      onStop(error, failedReads);
    };
    this.worker.on('error', (error) => stop(error));
    this.worker.on('exit', (code) => stop(new Error(`the reader thread exited (code ${code})`)));
  }

  send(request: ReadRequest): Promise<string> {
    return new Promise((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      this.worker.postMessage(request);
    });
  }
}

export interface ReaderThreadsOptions {
  file: string;
  /** The threads' script: reader-thread's, unless a test gives another that speaks the same protocol. */
  script?: URL;
  cursorSecret: Buffer;
  /** Store.events.payloadIndexPaths() of the store that owns the file, after the runtime's boot. */
  payloadIndexPaths: string[];
  threads: number;
  logger: Logger;
}

export class ReaderThreads {
  private readonly threads: ReaderThread[] = [];
  private readonly data: ReaderThreadData;
  private nextId = 1;
  private closing = false;

  private constructor(private readonly options: ReaderThreadsOptions) {
    this.data = { file: options.file, cursorSecret: new Uint8Array(options.cursorSecret), payloadIndexPaths: options.payloadIndexPaths };
  }

  /** Starts `threads` threads and waits until each has its connection open. */
  static async start(options: ReaderThreadsOptions): Promise<ReaderThreads> {
    const pool = new ReaderThreads(options);
    for (let i = 0; i < options.threads; i++) pool.threads.push(pool.spawn());
    try {
      await Promise.all(pool.threads.map((t) => t.ready));
    } catch (err) {
      await pool.close();
      throw err;
    }
    return pool;
  }

  /** How many threads are running (a stopped one is replaced on the next read). */
  get size(): number {
    return this.threads.filter((t) => !t.stopped).length;
  }

  /** Reads in the least busy thread; an error is the one the read would have thrown on the main thread. */
  async read<M extends ThreadReadMethod>(method: M, params: Params<M>): Promise<SerializedResult<M>> {
    if (this.closing) throw new Error('the reader threads are closing');
    const thread = this.leastBusy();
    return new SerializedResult<M>(await thread.send({ id: this.nextId++, method, params }));
  }

  private leastBusy(): ReaderThread {
    for (let i = 0; i < this.threads.length; i++) if (this.threads[i]!.stopped) this.threads[i] = this.spawn();
    let best = this.threads[0]!;
    for (const t of this.threads) if (t.pending.size < best.pending.size) best = t;
    return best;
  }

  private spawn(): ReaderThread {
    return new ReaderThread(this.options.script ?? THREAD_SCRIPT, this.data, (error, failedReads) => {
      if (!this.closing) this.options.logger.error('reader thread stopped; a new one starts on the next read', { error: error.message, reads_failed: failedReads });
    });
  }

  /** Closes each thread's connection once its reads in flight have answered. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.threads.map(async (t) => {
        if (t.stopped) return;
        const exited = new Promise<void>((resolve) => t.worker.once('exit', () => resolve()));
        t.worker.postMessage({ close: true });
        await exited;
      }),
    );
  }
}
