/**
 * The reads a reader thread runs: list pages that need only the store, their parameters already
 * validated on the main thread, each answered as its result's JSON text. Each is also what the
 * method's handler runs on the main thread when the page is read there, so both give the same answer.
 */
import type { MethodName, Params } from '@switchboard/contract';
import type { Store } from '@switchboard/store';
import { readEventListText } from '../methods/event/list';
import type { ThreadReadMethod } from './thread-read-method';

type ThreadRead<M extends MethodName> = (store: Store, params: Params<M>) => Promise<string>;

export const THREAD_READS: { [M in ThreadReadMethod]: ThreadRead<M> } = {
  'event.list': readEventListText,
};

export function isThreadReadMethod(method: string): method is ThreadReadMethod {
  return Object.hasOwn(THREAD_READS, method);
}
