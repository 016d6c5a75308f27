/** A clock shared by every component that shows a relative time: one timer per period, not one per cell. */
import { useSyncExternalStore } from 'react';

const clocks = new Map<number, { now: number; listeners: Set<() => void>; timer: ReturnType<typeof setInterval> | null }>();

function clockFor(periodMs: number) {
  let clock = clocks.get(periodMs);
  if (!clock) clocks.set(periodMs, (clock = { now: Date.now(), listeners: new Set(), timer: null }));
  return clock;
}

export function useNow(periodMs = 30_000): number {
  const clock = clockFor(periodMs);
  return useSyncExternalStore(
    (listener) => {
      clock.listeners.add(listener);
      if (!clock.timer) {
        clock.now = Date.now();
        clock.timer = setInterval(() => {
          clock.now = Date.now();
          clock.listeners.forEach((l) => l());
        }, periodMs);
      }
      return () => {
        clock.listeners.delete(listener);
        if (clock.listeners.size === 0 && clock.timer) {
          clearInterval(clock.timer);
          clock.timer = null;
        }
      };
    },
    () => clock.now,
  );
}
