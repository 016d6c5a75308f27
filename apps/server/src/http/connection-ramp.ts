/**
 * Keeps event-loop turns short while connections are arriving, so that they are all accepted soon.
 *
 * libuv (Node 20 on) accepts one pending connection per turn of the event loop, and a turn serves
 * every request that is ready to be read. Under load a turn lasts as long as all of them together,
 * so a burst of new connections waits one long turn each before the first request on it is even
 * read, seconds in all on a busy server (docs/performance-notes.md, "HTTP"). When a connection
 * comes within RAMP_MS of the one before, the server starts a few requests per turn and queues the
 * rest in arrival order; once no connection has come for RAMP_MS, requests start as they are read
 * again, and the queue (if any) is served first. A lone connection (a load balancer's health
 * check) is accepted on the next turn anyway and changes nothing.
 */
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';

/** Connections this close together start the ramp, and it lasts this long after the last of them. */
export const RAMP_MS = 100;
/** Requests started per turn during the ramp. */
export const STARTS_PER_TURN = 4;

export interface ConnectionRamp {
  /** The request listener to give the HTTP server (wraps the application's). */
  listener: RequestListener;
  /** Watches `server` for new connections (two close together open the ramp, later ones extend it). */
  watch(server: Server): void;
  /** Requests read but not started yet (tests). */
  queued(): number;
}

export function connectionRamp(listener: RequestListener, now: () => number = () => performance.now()): ConnectionRamp {
  let rampUntil = -Infinity;
  let lastConnectionAt = -Infinity;
  let drainScheduled = false;
  const waiting: [IncomingMessage, ServerResponse][] = [];

  // Runs in the check phase, after the turn's reads; what it leaves waits for the next turn.
  const drain = () => {
    drainScheduled = false;
    const ramping = now() < rampUntil;
    for (let started = 0; waiting.length > 0 && (!ramping || started < STARTS_PER_TURN); started++) {
      const [req, res] = waiting.shift()!;
      void listener(req, res);
    }
    if (waiting.length > 0) scheduleDrain();
  };
  const scheduleDrain = () => {
    if (drainScheduled) return;
    drainScheduled = true;
    setImmediate(drain);
  };

  return {
    listener: (req, res) => {
      if (waiting.length === 0 && now() >= rampUntil) {
        void listener(req, res);
        return;
      }
      waiting.push([req, res]);
      scheduleDrain();
    },
    watch: (server) => {
      server.on('connection', () => {
        const at = now();
        if (at - lastConnectionAt < RAMP_MS) rampUntil = at + RAMP_MS;
        lastConnectionAt = at;
      });
    },
    queued: () => waiting.length,
  };
}
