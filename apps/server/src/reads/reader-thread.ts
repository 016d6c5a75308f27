/**
 * A reader thread's entry point (bundled as dist/reader-thread.mjs): opens its own read-only
 * connection to the store's file and answers reads with their results' JSON text.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { RpcError } from '@switchboard/contract';
import { Store } from '@switchboard/store';
import { useCursorSecret } from '../pagination/cursor';
import type { ReaderMessage, ReaderThreadData, ReadRequest } from './reader-thread-protocol';
import { isThreadReadMethod, THREAD_READS } from './thread-reads';

const port = parentPort;
if (!port) throw new Error('reader-thread runs as a worker thread of the server');
const data = workerData as ReaderThreadData;
const store = Store.openThreadReader(data.file);
useCursorSecret(store, Buffer.from(data.cursorSecret));
store.events.knowPayloadIndexes(data.payloadIndexPaths);

const answer = (message: ReaderMessage) => port.postMessage(message);
let inFlight = 0;
let closeWhenIdle: (() => void) | undefined;

async function read({ id, method, params }: ReadRequest): Promise<void> {
  inFlight++;
  try {
    if (!isThreadReadMethod(method)) throw new Error(`${method} is not read in reader threads`);
    answer({ id, json: await THREAD_READS[method](store, params as never) });
  } catch (err) {
    if (err instanceof RpcError) answer({ id, rpcError: { code: err.code, message: err.message, details: err.details } });
    else {
      const code = (err as { code?: unknown } | null)?.code;
      answer({ id, failure: { message: err instanceof Error ? err.message : String(err), ...(typeof code === 'string' ? { code } : {}) } });
    }
  } finally {
    if (--inFlight === 0) closeWhenIdle?.();
  }
}

port.on('message', (message: ReadRequest | { close: true }) => {
  if ('close' in message) {
    // Every read sent before the close has started (messages arrive in order): answer them first.
    closeWhenIdle = () => void store.close().finally(() => port.close());
    if (inFlight === 0) closeWhenIdle();
    return;
  }
  void read(message);
});
answer({ ready: true });
