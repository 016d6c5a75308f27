/** Opening a mailbox item: an approval gate's request for a person's decision, written in the gate's transaction. */
import type { Store, StoreTx } from '@switchboard/store';
import { newId } from './ids';

export interface NewMailboxItem {
  type: string;
  priority: 'low' | 'normal' | 'high' | 'urgent';
  source_flow: string;
  payload: Record<string, unknown>;
  source_entity_id: string | null;
  source_event_id: string | null;
  run_id: string | null;
}

export const RUNTIME_ACTOR = 'runtime';

export async function openMailboxItem(store: Store, tx: StoreTx, now: Date, item: NewMailboxItem): Promise<string> {
  const mailbox_id = newId('mbx', now);
  const ts = now.toISOString();
  await store.mailboxDecisions.open(
    tx,
    {
      mailbox_id,
      created_at: ts,
      payload: JSON.stringify(item.payload),
      priority: item.priority,
      source_flow: item.source_flow,
      status: 'pending',
      type: item.type,
      decided_at: null,
      decision: null,
      source_entity_id: item.source_entity_id,
      source_event_id: item.source_event_id,
      run_id: item.run_id,
    },
    { mailbox_id, action: 'created', actor_token_id: RUNTIME_ACTOR, ts, decision_payload: null, reason: null, decision_id: null },
  );
  return mailbox_id;
}
