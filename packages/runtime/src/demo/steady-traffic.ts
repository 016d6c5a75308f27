/**
 * Low, steady demo traffic: publishes a support ticket at a configurable rate until stopped, so
 * a long-running demo keeps producing fresh runs, turns, retries and mailbox items.
 */
import type { Runtime } from '../runtime';
import { DEMO_ACTOR } from './scenario';
import { demoTicket } from './tickets';

export interface SteadyTrafficOptions {
  ratePerMinute: number;
  /** Called when a publish fails (paused ingress queues rather than fails; a reset refuses). */
  onError?: (err: Error) => void;
}

export interface SteadyTraffic {
  stop(): Promise<void>;
  readonly published: number;
}

export function startSteadyTraffic(runtime: Runtime, options: SteadyTrafficOptions): SteadyTraffic {
  let published = 0;
  let stopped = false;
  let inFlight: Promise<unknown> = Promise.resolve();
  const prefix = `S${Date.now().toString(36).toUpperCase()}`;
  const intervalMs = options.ratePerMinute > 0 ? 60_000 / options.ratePerMinute : 0;
  const timer = intervalMs > 0
    ? setInterval(() => {
        if (stopped || runtime.isResetting()) return;
        const t = demoTicket(published, prefix);
        published++;
        inFlight = runtime
          .publish({ event_name: 'ticket.created', payload: t.payload, entity_id: t.entity_id, source: DEMO_ACTOR })
          .catch((err: Error) => options.onError?.(err));
      }, intervalMs)
    : undefined;
  timer?.unref();
  return {
    get published() {
      return published;
    },
    async stop() {
      stopped = true;
      if (timer) clearInterval(timer);
      await inFlight;
    },
  };
}
