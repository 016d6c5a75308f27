import { describe, expect, it } from 'vitest';
import type { HealthCheckResult } from '@switchboard/contract';
import { heartbeatIndicator, measuredInterval, withArrival } from './heartbeat';
import { backoffDelay } from './ws-client';

const beat = (status: HealthCheckResult['status']): HealthCheckResult => ({
  ok: status === 'ok',
  ts: '2026-01-01T00:00:00.000Z',
  status,
  uptime_s: 1,
  ingress: 'open',
  bundle: { fingerprint: 'sha256:abc', name: 'demo' },
  checks: {},
  servers: [],
});

describe('heartbeatIndicator', () => {
  it('reports the server status while heartbeats arrive', () => {
    expect(heartbeatIndicator({ connection: 'open', last: beat('ok'), stale: false })).toBe('healthy');
    expect(heartbeatIndicator({ connection: 'open', last: beat('degraded'), stale: false })).toBe('degraded');
    expect(heartbeatIndicator({ connection: 'open', last: beat('down'), stale: false })).toBe('down');
  });
  it('says stale when heartbeats stop on an open socket, reconnecting when the socket is lost', () => {
    expect(heartbeatIndicator({ connection: 'open', last: beat('ok'), stale: true })).toBe('stale');
    expect(heartbeatIndicator({ connection: 'reconnecting', last: beat('ok'), stale: false })).toBe('reconnecting');
    expect(heartbeatIndicator({ connection: 'reconnecting', last: null, stale: false })).toBe('reconnecting');
  });
  it('says connecting before the first heartbeat', () => {
    expect(heartbeatIndicator({ connection: 'connecting', last: null, stale: false })).toBe('connecting');
    expect(heartbeatIndicator({ connection: 'open', last: null, stale: false })).toBe('connecting');
  });
});

describe('measuredInterval', () => {
  it('uses the fallback until two heartbeats arrived', () => {
    expect(measuredInterval([], 5000)).toBe(5000);
    expect(measuredInterval([1000], 5000)).toBe(5000);
  });
  it('takes the mean gap, so frames bunched up by a busy browser do not shrink it', () => {
    expect(measuredInterval([0, 1400, 2000, 3400, 4000], 5000)).toBe(1000);
    expect(measuredInterval([0, 1000, 2000, 3000], 5000)).toBe(1000);
  });
});

describe('backoffDelay', () => {
  const opts = { initialMs: 500, maxMs: 5000 };
  it('doubles per attempt up to the cap', () => {
    const mid = () => 0.5; // no jitter
    expect([1, 2, 3, 4, 5, 9].map((a) => backoffDelay(a, opts, mid))).toEqual([500, 1000, 2000, 4000, 5000, 5000]);
  });
  it('jitters within ±20%', () => {
    expect(backoffDelay(1, opts, () => 0)).toBe(400);
    expect(backoffDelay(1, opts, () => 1)).toBe(600);
  });
});

describe('withArrival', () => {
  it('leaves out the heartbeat that answers the subscribe, so a tick right after it does not set the interval', () => {
    // Subscribed at 0: the answer at 3 ms, the shared tick at 100 ms, then every 5 s.
    let arrivals: number[] = [];
    [3, 100, 5100, 10100].forEach((at, i) => (arrivals = withArrival(arrivals, at, i)));
    expect(arrivals).toEqual([100, 5100, 10100]);
    expect(measuredInterval(arrivals, 5000)).toBe(5000);
    // Counting the answer too would have measured 3,366 ms; with only the first two beats, 100 ms.
    expect(measuredInterval([3, 100], 5000)).toBe(100);
  });
});
