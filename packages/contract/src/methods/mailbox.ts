import { z } from 'zod';
import { defineMethod } from '../method';
import { decisionSheet, mailboxApproval, mailboxDeciders, mailboxHistoryEntry, mailboxItem, mailboxPriority, mailboxStatus, subscriberSource } from '../records';
import { idempotencyKey, nextCursor, pageCursor, pageLimit, payloadConditions } from './common';

export const rejectReason = z.object({ code: z.string(), label: z.string() });

export const mailboxList = defineMethod({
  name: 'mailbox.list',
  summary: 'Mailbox items, pending first, then newest first.',
  params: z.strictObject({
    filter: z
      .strictObject({
        status: mailboxStatus.optional(),
        type: z.string().min(1).optional(),
        source_flow: z.string().min(1).optional(),
        priority: mailboxPriority.optional(),
        reason_code: z.string().min(1).optional().describe("additive: rejected items with this reason code"),
        payload: payloadConditions.optional(),
      })
      .optional(),
    limit: pageLimit,
    cursor: pageCursor,
  }),
  result: z.object({ items: z.array(mailboxItem), next_cursor: nextCursor }),
  errors: ['INVALID_CURSOR'],
  scope: 'read',
  mutating: false,
});

export const mailboxGet = defineMethod({
  name: 'mailbox.get',
  summary: 'One mailbox item with full payload, decision history and the server-owned decision sheet.',
  params: z.strictObject({ mailbox_id: z.string().min(1) }),
  result: z.object({
    item: mailboxItem,
    history: z.array(mailboxHistoryEntry),
    decision_sheet: decisionSheet.describe('as it stands now'),
    payload: z.record(z.string(), z.unknown()),
    decided_sheet: decisionSheet.optional().describe('additive: a decided item\'s decision sheet as it stood when it was decided'),
    emitted_payload: z.record(z.string(), z.unknown()).optional().describe('additive: the payload approval emitted'),
    emitted_event_id: z.string().optional().describe('additive: the event approval emitted'),
    reject_reasons: z.array(rejectReason).describe("additive: the reason codes a reject of this item's type may carry (from the bundle)"),
    approvals: z.array(mailboxApproval).optional().describe('additive: the approvals given so far, oldest first'),
    deciders: mailboxDeciders.optional().describe("additive: who may decide this item's type and how many distinct approvals it needs"),
    run_started_by_user_id: z.string().optional().describe("additive: the person whose publish started the run, when the item's type keeps them from approving it"),
  }),
  errors: ['NOT_FOUND'],
  scope: 'read',
  mutating: false,
});

const reason = z
  .string()
  .trim()
  .min(1, 'reason must not be empty or whitespace')
  .max(2000, 'reason must be at most 2000 characters');

const decisionResult = z.object({
  idempotency_replayed: z.boolean(),
  mailbox_decision_id: z.string(),
  ok: z.boolean(),
  status: mailboxStatus.describe("the item's status after the call: still pending after an approval that is not the last one its type needs"),
  downstream_event_id: z.string().optional(),
  downstream_event_name: z.string().optional(),
  downstream_subscriber_source: subscriberSource.optional(),
  downstream_subscribers: z.array(z.string()).optional(),
  approvals: z.array(mailboxApproval).optional().describe('additive: the approvals given so far, this one included'),
  approvals_required: z.number().int().optional().describe("additive: how many distinct approvals the item's type needs"),
});

export const mailboxReject = defineMethod({
  name: 'mailbox.reject',
  summary: 'Rejects a pending mailbox item with a stated reason. No downstream event is emitted.',
  params: z.strictObject({
    mailbox_id: z.string().min(1),
    reason,
    reason_code: z
      .string()
      .min(1)
      .optional()
      .describe("additive: one of the bundle's reason codes for the item's type, or \"other\"; required when the type declares codes"),
    idempotency_key: idempotencyKey,
  }),
  result: decisionResult,
  errors: ['NOT_FOUND', 'MAILBOX_NOT_PENDING', 'FORBIDDEN', 'RESET_IN_PROGRESS', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  scope: 'mailbox:decide',
  mutating: true,
});

export const mailboxApprove = defineMethod({
  name: 'mailbox.approve',
  summary: "Approves a pending mailbox item and emits its approval route's event.",
  params: z.strictObject({
    mailbox_id: z.string().min(1),
    reason: reason.optional(),
    decision_payload: z.record(z.string(), z.unknown()).optional(),
    expected_entity_revision: z
      .number()
      .int()
      .optional()
      .describe('the entity revision the reviewer saw; STALE_DECISION_SHEET when the entity has moved past it'),
    override_note: reason
      .optional()
      .describe("additive: why approve although some of the entity's gates fail; required then (GATE_OVERRIDE_REQUIRED), stored with the decision"),
    idempotency_key: idempotencyKey,
  }),
  result: decisionResult,
  errors: [
    'NOT_FOUND',
    'MAILBOX_NOT_PENDING',
    'STALE_DECISION_SHEET',
    'GATE_OVERRIDE_REQUIRED',
    'ALREADY_APPROVED',
    'FORBIDDEN',
    'RESET_IN_PROGRESS',
    'IDEMPOTENCY_CONFLICT',
    'IDEMPOTENCY_IN_PROGRESS',
  ],
  scope: 'mailbox:decide',
  mutating: true,
});

export const mailboxRejectReasons = defineMethod({
  name: 'mailbox.reject_reasons',
  summary: "Additive: the bundle's reject reason codes per mailbox type, each with how many items were rejected with it.",
  params: z.strictObject({ type: z.string().min(1).optional() }),
  result: z.object({ reasons: z.array(rejectReason.extend({ type: z.string(), count: z.number().int() })) }),
  errors: [],
  scope: 'read',
  mutating: false,
});
