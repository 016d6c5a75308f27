/**
 * Entity ids are indexed, and PostgreSQL refuses a btree entry over 2,704 bytes: a publish naming a
 * 3,000-character entity was an INTERNAL error there while SQLite stored it. Both engines now take
 * ids of up to MAX_ENTITY_ID_LENGTH characters (4-byte ones included) and refuse longer ones the
 * same way: a publish's entity_id is INVALID_PARAMS, and an entity node given one from a payload
 * fails its delivery once, not retryable, with its own reason code.
 */
import { describe, expect, it } from 'vitest';
import { MAX_ENTITY_ID_LENGTH } from '@switchboard/contract';
import type { TestServer } from './harness';
import { withControlServer } from './methods/method-servers';
import { count, fails, ok, waitForQuiet } from './control-helpers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});

/** Characters that do not compress, so PostgreSQL stores the index entry at its full size. */
function randomId(length: number, alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'): string {
  const chars = [...alphabet];
  return Array.from({ length }, () => chars[Math.floor(Math.random() * chars.length)]).join('');
}

describe('entity id length', () => {
  it('a publish takes an entity id of the longest length, even of 4-byte characters, and finds its event by it', async () => {
    const longest = randomId(MAX_ENTITY_ID_LENGTH, '😀🚀🌍🎉🔥🍕🎵🌈');
    const { event_id } = await ok(server, 'event.publish', { event_name: 'tick', payload: { n: 1 }, entity_id: longest });
    const { events } = await ok(server, 'event.list', { filter: { entity_id: longest } });
    expect(events.map((e: { event_id: string }) => e.event_id)).toEqual([event_id]);
    await waitForQuiet(server);
  });

  it('a publish naming a longer entity id is INVALID_PARAMS naming the field, and writes nothing', async () => {
    const before = await count(server, 'events');
    const error = await fails(server, 'event.publish', { event_name: 'tick', payload: { n: 1 }, entity_id: randomId(3000) }, 'INVALID_PARAMS');
    expect(error.data.details.issues?.map((i: { path: string }) => i.path)).toEqual(['entity_id']);
    expect(await count(server, 'events')).toBe(before);
  });

  it('an entity node takes an id of the longest length from its payload (its type prefixed: "order:…")', async () => {
    const orderId = randomId(MAX_ENTITY_ID_LENGTH - 'order:'.length, '😀🚀🌍🎉🔥🍕🎵🌈');
    const { event_id } = await ok(server, 'event.publish', { event_name: 'order.placed', payload: { order_id: orderId, amount: 5 } });
    await waitForQuiet(server);
    const { events } = await ok(server, 'event.list', { filter: { event_id } });
    expect(events[0]!.deliveries.find((d: { subscriber_id: string }) => d.subscriber_id === 'record-order')).toMatchObject({ status: 'delivered' });
  });

  it('an entity node given a longer id from its payload fails that delivery once, not retryable, and dead-letters it', async () => {
    const { event_id } = await ok(server, 'event.publish', { event_name: 'order.placed', payload: { order_id: randomId(3000), amount: 5 } });
    await waitForQuiet(server);
    const { events } = await ok(server, 'event.list', { filter: { event_id } });
    const recorded = events[0]!.deliveries.find((d) => d.subscriber_id === 'record-order')!;
    expect(recorded).toMatchObject({ status: 'failed', attempts: 1, reason_code: 'entity_id_too_long' });
    expect(events[0]!.dead_letters.map((l) => [l.delivery_id, l.reason_code])).toContainEqual([recorded.delivery_id, 'entity_id_too_long']);
  });
});
