import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { connectionRamp, RAMP_MS, STARTS_PER_TURN } from './connection-ramp';

/** One turn of the event loop: the ramp's check-phase work queued before this call has run. */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

function harness() {
  let clock = 1_000;
  const started: number[] = [];
  const server = new EventEmitter();
  const ramp = connectionRamp((req) => void started.push((req as unknown as { n: number }).n), () => clock);
  ramp.watch(server as unknown as Server);
  const request = (n: number) => ramp.listener({ n } as unknown as IncomingMessage, {} as ServerResponse);
  return {
    started,
    ramp,
    request,
    connect: () => server.emit('connection'),
    /** Two connections in the same instant: a burst. */
    burst: () => {
      server.emit('connection');
      server.emit('connection');
    },
    advance: (ms: number) => (clock += ms),
  };
}

describe('connectionRamp', () => {
  it('starts every request as it is read when no connection arrived lately', () => {
    const h = harness();
    for (let n = 0; n < 20; n++) h.request(n);
    expect(h.started).toEqual([...Array(20).keys()]);
    expect(h.ramp.queued()).toBe(0);
  });

  it('a lone connection changes nothing: it is accepted on the next turn anyway', () => {
    const h = harness();
    h.connect();
    h.advance(RAMP_MS);
    h.connect();
    for (let n = 0; n < 20; n++) h.request(n);
    expect(h.started).toEqual([...Array(20).keys()]);
  });

  it('while connections arrive, starts a few requests per turn, in the order they were read', async () => {
    const h = harness();
    h.burst();
    for (let n = 0; n < 9; n++) h.request(n);
    expect(h.started).toEqual([]);
    expect(h.ramp.queued()).toBe(9);
    const perTurn: number[] = [];
    while (h.started.length < 9) {
      const before = h.started.length;
      await nextTurn();
      perTurn.push(h.started.length - before);
    }
    expect(perTurn.every((count) => count === STARTS_PER_TURN || count === 9 % STARTS_PER_TURN)).toBe(true);
    expect(h.started).toEqual([...Array(9).keys()]);
  });

  it('a request read while others wait goes behind them, even once the ramp is over', async () => {
    const h = harness();
    h.burst();
    for (let n = 0; n < STARTS_PER_TURN + 3; n++) h.request(n);
    await nextTurn();
    h.advance(RAMP_MS);
    h.request(100);
    expect(h.started).not.toContain(100);
    while (h.ramp.queued() > 0) await nextTurn();
    expect(h.started.at(-1)).toBe(100);
  });

  it('once no connection came for RAMP_MS, what waits starts together and new requests start at once', async () => {
    const h = harness();
    h.burst();
    for (let n = 0; n < 10; n++) h.request(n);
    h.advance(RAMP_MS / 2);
    h.connect();
    await nextTurn();
    expect(h.ramp.queued()).toBe(10 - STARTS_PER_TURN);
    h.advance(RAMP_MS / 2 + 1);
    await nextTurn();
    expect(h.ramp.queued()).toBe(10 - 2 * STARTS_PER_TURN);
    h.advance(RAMP_MS / 2);
    await nextTurn();
    expect(h.ramp.queued()).toBe(0);
    expect(h.started).toEqual([...Array(10).keys()]);
    h.request(10);
    expect(h.started.at(-1)).toBe(10);
  });
});
