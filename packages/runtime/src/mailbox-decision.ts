/** A person's decision on a mailbox item: who decides, what they send, and what it did. */
import type { MailboxApproval, Role } from '@switchboard/contract';
import type { MailboxApprovalRow } from '@switchboard/store';

/** The person deciding: their role and id decide whether they may, and each approval is theirs. */
export interface Decider {
  userId: string;
  userName: string;
  role: Role;
}

export interface RejectInput {
  mailbox_id: string;
  reason: string;
  /** One of the bundle's reject reason codes for the item's type. */
  reason_code?: string;
  actorTokenId: string;
  decider: Decider;
}

export interface ApproveInput {
  mailbox_id: string;
  reason?: string;
  /** Why approve although some of the entity's gates fail; required then. */
  override_note?: string;
  decision_payload?: Record<string, unknown>;
  expected_entity_revision?: number;
  actorTokenId: string;
  decider: Decider;
}

/** The reason code any type that declares codes also accepts, with the reason text saying why. */
export const OTHER_REASON_CODE = 'other';

export interface DecisionOutcome {
  ok: true;
  mailbox_decision_id: string;
  /** 'pending' after an approval that is not the last one the type needs. */
  status: 'pending' | 'approved' | 'rejected';
  approvals?: MailboxApproval[];
  approvals_required?: number;
  downstream_event_id?: string;
  downstream_event_name?: string;
  downstream_subscriber_source?: 'event_catalog';
  downstream_subscribers?: string[];
}

export function toMailboxApproval(row: MailboxApprovalRow): MailboxApproval {
  return { user_id: row.user_id, user_name: row.user_name, at: row.approved_at };
}
