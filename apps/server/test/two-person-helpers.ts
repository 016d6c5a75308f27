/** People and items for the two-person rule tests (the two-person test bundle). */
import { vi } from 'vitest';
import { fileURLToPath } from 'node:url';
import type { Role } from '@switchboard/contract';
import { databaseOf } from '@switchboard/store/testing';

import type { TestServer } from './harness';

export const TWO_PERSON_BUNDLE = fileURLToPath(new URL('./bundles/two-person.yaml', import.meta.url));

export interface TestPerson {
  userId: string;
  name: string;
  secret: string;
}

/** A user with a role and a token of their own, made in the store like an admin would. */
export async function addPerson(server: TestServer, name: string, role: Role, id?: string): Promise<TestPerson> {
  const user = await server.store.users.create({ display_name: name, role, ...(id ? { id } : {}) });
  const { secret } = await server.store.tokens.create(`${name}'s token`, { userId: user.id });
  return { userId: user.id, name, secret };
}

/** Publishes an event as `secret` (the server's admin token by default) and waits for the mailbox item its run opens. */
export async function openItemOf(server: TestServer, event: 'order.placed' | 'memo.filed', payload: Record<string, unknown>, secret?: string): Promise<{ mailbox_id: string; run_id: string }> {
  const published = await server.rpc('event.publish', { event_name: event, payload }, secret ? { token: secret } : {});
  if (!published.result) throw new Error(`event.publish failed: ${JSON.stringify(published.error)}`);
  const runId = published.result.run_id;
  const mailboxId = await vi.waitFor(
    async () => {
      const row = await databaseOf(server.store).selectFrom('mailbox_items').select('mailbox_id').where('run_id', '=', runId).executeTakeFirst();
      if (!row) throw new Error(`no mailbox item of run ${runId} yet`);
      return row.mailbox_id;
    },
    { timeout: 10_000, interval: 20 },
  );
  return { mailbox_id: mailboxId, run_id: runId };
}
