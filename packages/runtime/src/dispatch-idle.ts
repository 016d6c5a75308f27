/** Waiting until dispatch has nothing left to do: for scripts (the demo scenario), benchmarks and tests. */
import type { Store } from '@switchboard/store';
import type { Dispatcher } from './dispatcher';

/** Resolves once nothing is in flight in `dispatcher` and no delivery is open in the store. */
export async function waitForIdle(dispatcher: Pick<Dispatcher, 'inFlightCount'>, store: Store, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (dispatcher.inFlightCount === 0 && (await store.deliveries.openCount()) === 0) return;
    if (Date.now() > deadline) throw new Error(`runtime not idle after ${timeoutMs} ms (${await store.deliveries.openCount()} open deliveries, ${dispatcher.inFlightCount} in flight)`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
