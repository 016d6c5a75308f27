/**
 * Text a handler writes may hold U+0000 (a payload's field copied into an entity's name, say).
 * PostgreSQL's text cannot hold it, and the write failed there (its delivery retried, then
 * dead-lettered); it is stored with U+FFFD in its place. SQLite keeps it as written.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, it } from 'vitest';
import { openTestStore, testEngine } from '@switchboard/store/testing';

const NOW = '2026-05-01T12:00:00.000Z';

it('an entity whose name holds U+0000 is stored, and found again by an id holding it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-postgres-text-'));
  const store = await openTestStore(dir);
  try {
    const id = 'ticket:a\u0000b';
    await store.transaction((tx) =>
      store.entities.insert(tx, {
        entity_id: id,
        entity_type: 'ticket',
        current_state: 'open',
        flow_instance: 'f1',
        revision: 1,
        run_id: 'run_1',
        name: 'before\u0000after',
        slug: 'before-after',
        fields: JSON.stringify({ subject: 'x\u0000y' }),
        accumulated: '{}',
        created_at: NOW,
        updated_at: NOW,
      }),
    );
    const row = await store.entities.get(id);
    const nul = testEngine() === 'postgres' ? '\uFFFD' : '\u0000';
    expect(row).toMatchObject({ entity_id: `ticket:a${nul}b`, name: `before${nul}after` });
    // JSON text keeps it on both engines: JSON writes NUL as an escape.
    expect(JSON.parse(row!.fields)).toEqual({ subject: 'x\u0000y' });
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
