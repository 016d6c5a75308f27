/** Time bounds written with any UTC offset select by instant, not by text. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CONTROL_BUNDLE, ok } from './control-helpers';
import { startTestServer, type TestServer } from './harness';

let server: TestServer;
let before: Date;
let after: Date;

beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
  before = new Date();
  for (let n = 0; n < 3; n++) await ok(server, 'event.publish', { event_name: 'tick', payload: { n } });
  after = new Date();
});
afterAll(() => server.close());

/** The same instant written in the local time of a zone `offsetHours` from UTC, e.g. "…+14:00". */
function withOffset(instant: Date, offsetHours: number): string {
  const local = new Date(instant.getTime() + offsetHours * 3_600_000).toISOString().slice(0, 23);
  const sign = offsetHours < 0 ? '-' : '+';
  const hh = String(Math.abs(offsetHours)).padStart(2, '0');
  return `${local}${sign}${hh}:00`;
}

const HOUR = 3_600_000;
const tickCount = async (bounds: { since?: string; until?: string }) =>
  (await ok(server, 'event.list', { filter: { event_name: 'tick' }, ...bounds, limit: 50 })).events.length;

describe('event.list since/until with UTC offsets', () => {
  for (const offset of [14, -12, 5, 0]) {
    it(`since written at UTC${offset >= 0 ? '+' : ''}${offset}`, async () => {
      expect(await tickCount({ since: withOffset(new Date(before.getTime() - HOUR), offset) })).toBe(3);
      expect(await tickCount({ since: withOffset(new Date(after.getTime() + HOUR), offset) })).toBe(0);
    });
    it(`until written at UTC${offset >= 0 ? '+' : ''}${offset}`, async () => {
      expect(await tickCount({ until: withOffset(new Date(after.getTime() + HOUR), offset) })).toBe(3);
      expect(await tickCount({ until: withOffset(new Date(before.getTime() - HOUR), offset) })).toBe(0);
    });
  }

  it('a cursor from one spelling of the bounds keeps working with another spelling of the same instants', async () => {
    const since = new Date(before.getTime() - HOUR);
    const first = await ok(server, 'event.list', { filter: { event_name: 'tick' }, since: withOffset(since, 14), limit: 2 });
    expect(first.events).toHaveLength(2);
    const second = await ok(server, 'event.list', { filter: { event_name: 'tick' }, since: withOffset(since, -12), limit: 2, cursor: first.next_cursor });
    expect(second.events).toHaveLength(1);
  });
});
