/** Deterministic dispatch for tests whose runtime has no dispatcher loop running. */
import type { Store } from '@switchboard/store';
import type { Dispatcher } from '../dispatcher';

/**
 * Claims and runs deliveries one at a time in this call until none is open, sleeping only while
 * retries wait out their backoff.
 */
export async function runUntilIdle({ dispatcher, services }: { dispatcher: Dispatcher; services: { store: Store } }, timeoutMs = 30_000): Promise<void> {
  const { store } = services;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const batch = dispatcher.claimsArePaused ? [] : await dispatcher.claimDue(16);
    for (const d of batch) await dispatcher.run(d);
    if (batch.length > 0) continue;
    if (dispatcher.inFlightCount === 0 && (await store.deliveries.openCount()) === 0) return;
    if (Date.now() > deadline) throw new Error(`runUntilIdle: still ${await store.deliveries.openCount()} open deliveries after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
