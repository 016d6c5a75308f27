/**
 * U+0000 in a text param, on both engines: PostgreSQL's text cannot hold it (a publish with such an
 * idempotency key, or a list filtered by such an entity id, was an INTERNAL error there), so every
 * engine refuses it as INVALID_PARAMS naming the field, and writes nothing. A payload is JSON,
 * stored as JSON text, and keeps it.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from './harness';
import { withControlServer } from './methods/method-servers';
import { count, fails, ok, waitForQuiet } from './control-helpers';

let server: TestServer;
withControlServer((s) => {
  server = s;
});

const NUL_MESSAGE = 'contains U+0000 (NUL), which no text field accepts';

describe('U+0000 in params', () => {
  it('a publish whose idempotency key or event name holds NUL is refused, naming the field, and writes nothing', async () => {
    const before = { events: await count(server, 'events'), idempotency: await count(server, 'idempotency') };
    const byKey = await fails(server, 'event.publish', { event_name: 'tick', payload: { n: 1 }, idempotency_key: 'key\u0000tail' }, 'INVALID_PARAMS');
    expect(byKey.data.details.issues).toEqual([{ path: 'idempotency_key', message: NUL_MESSAGE }]);
    const byName = await fails(server, 'event.publish', { event_name: 'tick\u0000', payload: { n: 1 } }, 'INVALID_PARAMS');
    expect(byName.data.details.issues).toEqual([{ path: 'event_name', message: NUL_MESSAGE }]);
    expect({ events: await count(server, 'events'), idempotency: await count(server, 'idempotency') }).toEqual(before);
  });

  it('a list filter holding NUL is refused, naming the field', async () => {
    const error = await fails(server, 'event.list', { filter: { entity_id: 'order:\u0000' } }, 'INVALID_PARAMS');
    expect(error.data.details.issues).toEqual([{ path: 'filter.entity_id', message: NUL_MESSAGE }]);
  });

  it('a decision reason holding NUL is refused before the item is looked up', async () => {
    const error = await fails(server, 'mailbox.reject', { mailbox_id: 'mbx_unknown', reason: 'no\u0000' }, 'INVALID_PARAMS');
    expect(error.data.details.issues).toEqual([{ path: 'reason', message: NUL_MESSAGE }]);
  });

  it('a payload keeps NUL in its keys and values, read back as sent', async () => {
    const payload = { n: 7, note: 'before\u0000after', ['key\u0000']: ['\u0000'] };
    const { event_id } = await ok(server, 'event.publish', { event_name: 'tick', payload });
    const { events } = await ok(server, 'event.list', { filter: { event_id } });
    expect(events.map((e: { payload: unknown }) => e.payload)).toEqual([payload]);
    await waitForQuiet(server);
  });
});
