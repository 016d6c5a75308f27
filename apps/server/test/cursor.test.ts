import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Store } from '@switchboard/store';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../src/pagination/cursor';

const position = z.strictObject({ created_at: z.string(), seq: z.number().int() });
const dirs: string[] = [];
const stores: Store[] = [];

async function open(dir?: string): Promise<{ store: Store; dir: string }> {
  const d = dir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-cursor-'));
  if (!dir) dirs.push(d);
  const store = await Store.open({ dataDir: d });
  stores.push(store);
  return { store, dir: d };
}

afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('keyset cursors', () => {
  const filter = { filter: { entity_id: 'e1' }, since: undefined };
  const pos = { created_at: '2026-01-01T00:00:00.000Z', seq: 7 };

  it('round-trips, and stays valid for another store on the same database (restart, second process)', async () => {
    const a = await open();
    const cursor = await encodeCursor(a.store, 'event.list', filter, pos);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(await decodeCursor(a.store, 'event.list', filter, cursor, position)).toEqual(pos);
    const b = await open(a.dir);
    expect(await decodeCursor(b.store, 'event.list', { filter: { entity_id: 'e1' } }, cursor, position)).toEqual(pos);
  });

  it('is refused by a store with another secret, for another method or filter, and when altered', async () => {
    const a = await open();
    const other = await open();
    const cursor = await encodeCursor(a.store, 'event.list', filter, pos);
    const refused = async (p: Promise<unknown>) => expect(p).rejects.toMatchObject({ code: 'INVALID_CURSOR' });
    await refused(decodeCursor(other.store, 'event.list', filter, cursor, position));
    await refused(decodeCursor(a.store, 'mailbox.list', filter, cursor, position));
    await refused(decodeCursor(a.store, 'event.list', { filter: { entity_id: 'e2' } }, cursor, position));
    await refused(decodeCursor(a.store, 'event.list', filter, cursor.replace('.', '.x'), position));
    await refused(decodeCursor(a.store, 'event.list', filter, 'x' + cursor, position));
    await refused(decodeCursor(a.store, 'event.list', filter, cursor, z.strictObject({ pending: z.boolean() })));
  });
});
