import type { MailboxHistoryEntry, MailboxItem } from '@switchboard/contract';
import type { MailboxHistoryRow, MailboxItemRow } from '@switchboard/store';
import { omitAbsent, parseJsonObject } from './omit-absent';

export function toMailboxItem(row: MailboxItemRow): MailboxItem {
  return omitAbsent({
    mailbox_id: row.mailbox_id,
    created_at: row.created_at,
    payload: parseJsonObject(row.payload) ?? {},
    priority: row.priority as MailboxItem['priority'],
    source_flow: row.source_flow,
    status: row.status as MailboxItem['status'],
    type: row.type,
    decided_at: row.decided_at,
    decision: row.decision as MailboxItem['decision'] | null,
    source_entity_id: row.source_entity_id,
    source_event_id: row.source_event_id,
    reason_code: row.reason_code,
  });
}

export function toMailboxHistoryEntry(row: MailboxHistoryRow & { actor_token_name?: string | null }): MailboxHistoryEntry {
  return omitAbsent({
    action: row.action as MailboxHistoryEntry['action'],
    actor_token_id: row.actor_token_id,
    actor_token_name: row.actor_token_name,
    ts: row.ts,
    decision_payload: parseJsonObject(row.decision_payload),
    reason: row.reason,
    reason_code: row.reason_code,
    override_note: row.override_note,
    overridden_gates: row.overridden_gates ? (JSON.parse(row.overridden_gates) as MailboxHistoryEntry['overridden_gates']) : undefined,
  });
}
