import { RpcError } from '@switchboard/contract';
import type { Store } from '@switchboard/store';

/**
 * Passing store conditions, told to the client as retryable errors, never INTERNAL: a store that
 * is busy (a lock held by another writer, a deadlock or serialization failure) answers STORE_BUSY;
 * one whose database connection was lost or refused answers STORE_UNAVAILABLE. The store's engine
 * reads its driver's codes (Store.classifyError); driver messages stay in the log.
 */
export function retryableStoreError(store: Pick<Store, 'classifyError'>, err: unknown): RpcError | undefined {
  switch (store.classifyError(err)) {
    case 'busy':
      return new RpcError('STORE_BUSY');
    case 'unavailable':
      return new RpcError('STORE_UNAVAILABLE');
    default:
      return undefined;
  }
}
