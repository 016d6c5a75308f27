/** What the main thread and a reader thread (reader-thread.ts) say to each other. */
import type { ErrorCode } from '@switchboard/contract';

/** Given to a thread when it starts. */
export interface ReaderThreadData {
  /** The store's file (Store.threadReaderFile). */
  file: string;
  /** The store's cursor secret, so that cursors minted on either side are accepted on the other. */
  cursorSecret: Uint8Array;
  /** The payload paths the store indexed at boot: searches on them are served by their index. */
  payloadIndexPaths: string[];
}

export interface ReadRequest {
  id: number;
  method: string;
  params: unknown;
}

export type ReaderMessage =
  | { ready: true }
  | { id: number; json: string }
  /** A refusal the client should see as it is (an invalid cursor). */
  | { id: number; rpcError: { code: ErrorCode; message: string; details: Record<string, unknown> } }
  /** Anything else: the error's message and driver code, so the main thread can classify it. */
  | { id: number; failure: { message: string; code?: string } };
