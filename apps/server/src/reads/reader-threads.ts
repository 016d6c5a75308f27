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

/** How long a slot waits before starting a thread again after one could not start (open the file). */
const RETRY_FAILED_START_MS = 30_000;
/**
 * How long the main thread counts as busy after it was last seen busy. Calls waiting for their
 * body or queued on a socket are not counted in flight, so under steady load a page read on the
 * main thread would find it quiet again and again, and the threads would sit idle: once busy, pages
 * go to threads until the main thread has been quiet this long.
 */
export const BUSY_HOLD_MS = 500;

class ReaderThread {
  readonly worker: Worker;
  readonly pending = new Map<number, Pending>();
  /** Resolves once the thread opened its connection; rejects if it could not. */
  readonly ready: Promise<void>;
  started = false;
  stopped = false;

  constructor(script: URL, data: ReaderThreadData, onStop: (error: Error, failedReads: number, started: boolean) => void) {
    this.worker = new Worker(script, { workerData: data, name: 'switchboard-reader' });
    let started: () => void;
    let failed: (error: Error) => void;
    this.ready = new Promise<void>((resolve, reject) => {
      started = resolve;
      failed = reject;
    });
    this.ready.catch(() => undefined);
    this.worker.on('message', (message: ReaderMessage) => {
      if ('ready' in message) {
        this.started = true;
        return started();
      }
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
      onStop(error, failedReads, this.started);
    };
    this.worker.on('error', (error) => stop(error));
    this.worker.on('exit', (code) => stop(new Error(`the reader thread exited (code ${code})`)));
  }

  /** Sends the read once the thread has its connection open (a thread being started queues it). */
  send(request: ReadRequest): Promise<string> {
    return new Promise((resolve, reject) => {
      this.pending.set(request.id, { resolve, reject });
      if (this.started) this.worker.postMessage(request);
      else this.ready.then(() => this.worker.postMessage(request), () => undefined);
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
  /**
   * Whether the main thread has nothing under way but the caller's own call. Given, a page goes to a
   * thread only while reading it here would hold up other work (the main thread was busy in the
   * last BUSY_HOLD_MS, or the threads are reading), and only to a thread that has started: a quiet
   * server answers sooner without the hop. Absent, every page is read in a thread.
   */
  mainThreadQuiet?: () => boolean;
  /** BUSY_HOLD_MS unless a test gives another. */
  busyHoldMs?: number;
}

/**
 * The threads start on the first page asked for, not with the server: a thread's start costs about
 * a second of CPU, and many servers (tests, scripts) never list a page.
 */
export class ReaderThreads {
  private readonly slots: (ReaderThread | undefined)[];
  /** Per slot, when it may start a thread again (after one could not start). */
  private readonly startAfter: number[];
  private readonly data: ReaderThreadData;
  private nextId = 1;
  private readsInFlight = 0;
  private busyUntil = 0;
  private closing = false;

  constructor(private readonly options: ReaderThreadsOptions) {
    this.data = { file: options.file, cursorSecret: new Uint8Array(options.cursorSecret), payloadIndexPaths: options.payloadIndexPaths };
    this.slots = Array.from({ length: options.threads }, () => undefined);
    this.startAfter = this.slots.map(() => 0);
  }

  /** How many threads are running or starting. */
  get size(): number {
    return this.slots.filter((t) => t && !t.stopped).length;
  }

  /**
   * Whether the next page should be read in a thread (`read`); if not, the caller reads it on the
   * main thread. The first page asked for starts the threads, in the background when the main
   * thread reads it: they are started (and their connections open) when load comes.
   */
  takesRead(): boolean {
    if (this.closing) return false;
    this.startMissing();
    const quiet = this.options.mainThreadQuiet;
    if (quiet) {
      const now = Date.now();
      if (this.readsInFlight > 0 || !quiet()) this.busyUntil = now + (this.options.busyHoldMs ?? BUSY_HOLD_MS);
      else if (now >= this.busyUntil) return false;
    }
    return this.slots.some((t) => t && !t.stopped && (t.started || !quiet));
  }

  /** Reads in the least busy thread; an error is the one the read would have thrown on the main thread. */
  async read<M extends ThreadReadMethod>(method: M, params: Params<M>): Promise<SerializedResult<M>> {
    if (this.closing) throw new Error('the reader threads are closing');
    this.startMissing();
    const thread = this.leastBusy();
    this.readsInFlight++;
    try {
      return new SerializedResult<M>(await thread.send({ id: this.nextId++, method, params }));
    } finally {
      this.readsInFlight--;
    }
  }

  private leastBusy(): ReaderThread {
    let best: ReaderThread | undefined;
    for (const t of this.slots) {
      if (!t || t.stopped) continue;
      if (!best || (t.started && !best.started) || (t.started === best.started && t.pending.size < best.pending.size)) best = t;
    }
    if (!best) throw new Error('no reader thread could start; pages are read on the main thread until one does');
    return best;
  }

  private startMissing(): void {
    for (let i = 0; i < this.slots.length; i++) {
      const t = this.slots[i];
      if ((!t || t.stopped) && Date.now() >= this.startAfter[i]!) this.slots[i] = this.spawn(i);
    }
  }

  private spawn(slot: number): ReaderThread {
    return new ReaderThread(this.options.script ?? THREAD_SCRIPT, this.data, (error, failedReads, started) => {
      if (this.closing) return;
      if (started) {
        this.options.logger.error('reader thread stopped; a new one starts on the next read', { error: error.message, reads_failed: failedReads });
        return;
      }
      this.startAfter[slot] = Date.now() + RETRY_FAILED_START_MS;
      this.options.logger.error('reader thread could not start; pages are read on the main thread until one does', {
        error: error.message,
        reads_failed: failedReads,
        retry_in_ms: RETRY_FAILED_START_MS,
      });
    });
  }

  /** Closes each thread's connection once its reads in flight have answered. */
  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.slots.map(async (t) => {
        if (!t || t.stopped) return;
        const exited = new Promise<void>((resolve) => t.worker.once('exit', () => resolve()));
        // Reads queued on a thread still starting go out once it has started: the close follows them.
        await t.ready.catch(() => undefined);
        if (!t.stopped) t.worker.postMessage({ close: true });
        await exited;
      }),
    );
  }
}
