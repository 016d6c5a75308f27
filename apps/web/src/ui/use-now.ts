/**
 * A clock shared by every component that shows a relative time: one timer per period, not one per
 * cell. The timer keeps running once started; the snapshot changes only on ticks, never while
 * components subscribe (that would re-render them in a loop as virtualised rows mount).
 */
import { useSyncExternalStore } from 'react';

interface Clock {
  now: number;
  listeners: Set<() => void>;
}

const clocks = new Map<number, Clock>();

function clockFor(periodMs: number): Clock {
  let clock = clocks.get(periodMs);
  if (!clock) {
    const created: Clock = { now: Date.now(), listeners: new Set() };
    setInterval(() => {
      created.now = Date.now();
      created.listeners.forEach((l) => l());
    }, periodMs);
    clocks.set(periodMs, (clock = created));
  }
  return clock;
}

export function useNow(periodMs = 30_000): number {
  const clock = clockFor(periodMs);
  return useSyncExternalStore(
    (listener) => {
      clock.listeners.add(listener);
      return () => clock.listeners.delete(listener);
    },
    () => clock.now,
  );
}
