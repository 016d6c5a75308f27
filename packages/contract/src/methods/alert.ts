/**
 * Alerts (additive in v1): rules that turn runtime transitions into notices, destinations that
 * receive them (a Standard Webhooks endpoint or a Slack incoming webhook), the history of notices
 * with their delivery status, and silences. Reading needs `read`; changing needs `alerts:write`.
 */
import { z } from 'zod';
import { defineMethod } from '../method';
import { timestamp, timestampParam } from '../records';
import { idempotencyKey, nextCursor, pageCursor, pageLimit } from './common';

const entityId = z.string().min(1).max(100);
const ruleName = z.string().trim().min(1).max(100);
const seconds = (max: number) => z.number().int().min(1).max(max);

/**
 * What a rule watches. Each transition notifies once (an incident failing 1,000 times notifies when
 * it opens, again if it regresses); a condition (a rate, an age) notifies when it starts holding
 * and again only after it has stopped holding.
 */
export const alertTrigger = z.discriminatedUnion('trigger', [
  z.strictObject({
    trigger: z.literal('incident.opened'),
    min_level: z.enum(['warn', 'error']).optional().describe('default warn: every incident'),
  }),
  z.strictObject({
    trigger: z.literal('incident.regressed'),
    min_level: z.enum(['warn', 'error']).optional().describe('default warn: every incident'),
  }),
  z.strictObject({
    trigger: z.literal('incident.occurrences'),
    threshold: z.number().int().min(1).max(1_000_000_000).describe('occurrences of one incident inside the window'),
    window_s: seconds(7 * 86_400),
  }).describe('one notice per incident each time its occurrences inside the window reach the threshold, again only after a window below it'),
  z.strictObject({
    trigger: z.literal('mailbox.sla'),
    mailbox_type: z.string().min(1).max(100).optional().describe('default: every type that declares an SLA in the bundle'),
  }).describe("an item pending longer than its type's SLA (mailbox_types.<type>.sla in the bundle) notifies destination_ids; still pending after the SLA's escalate_after_s, it notifies escalation_destination_ids; a decision first cancels the escalation"),
  z.strictObject({
    trigger: z.literal('dead_letters.rate'),
    per_minute: z.number().int().min(1).max(1_000_000).describe('dead letters in the last minute'),
  }),
  z.strictObject({
    trigger: z.literal('queue.oldest_pending'),
    older_than_s: seconds(30 * 86_400).describe('age of the oldest pending delivery'),
  }),
  z.strictObject({ trigger: z.literal('server.dead') }).describe('a server declared dead (PostgreSQL, several servers)'),
  z.strictObject({ trigger: z.literal('reset.applied') }),
  z.strictObject({ trigger: z.literal('operation.failed') }).describe('a redrive or replay operation finished with failures'),
]);

export type AlertTrigger = z.infer<typeof alertTrigger>;
export type AlertTriggerName = AlertTrigger['trigger'];

export const alertRule = z.object({
  id: z.string(),
  name: z.string(),
  when: alertTrigger,
  destination_ids: z.array(z.string()),
  escalation_destination_ids: z.array(z.string()).describe('mailbox.sla only: notified after the escalation delay'),
  enabled: z.boolean(),
  source: z.enum(['bundle', 'api']).describe('bundle: declared in the bundle and added at boot when absent; the stored rule is then what counts'),
  created_at: timestamp,
  updated_at: timestamp,
  silenced_until: timestamp.optional().describe('present while a silence of this rule is active'),
});

export type AlertRule = z.infer<typeof alertRule>;

export const alertDestinationKind = z.enum(['webhook', 'slack']);

export const alertDestination = z.object({
  id: z.string(),
  name: z.string(),
  kind: alertDestinationKind,
  url: z.string().describe('webhook: the URL; slack: the URL with its secret path hidden'),
  created_at: timestamp,
  created_by: z.string().optional().describe('display name of the person who added it'),
});

export type AlertDestination = z.infer<typeof alertDestination>;

export const alertNoticeStatus = z.enum(['pending', 'delivered', 'failed', 'cancelled']);

export const alertNotice = z.object({
  id: z.string().describe('stable: the webhook-id header; every retry and resend reuses it'),
  rule_id: z.string().optional().describe('absent for a test notice'),
  rule_name: z.string().optional(),
  destination_id: z.string(),
  destination_name: z.string(),
  kind: alertDestinationKind,
  transition: z
    .enum(['incident.opened', 'incident.regressed', 'incident.occurrences', 'mailbox.sla', 'mailbox.sla_escalation', 'dead_letters.rate', 'queue.oldest_pending', 'server.dead', 'reset.applied', 'operation.failed', 'test'])
    .describe('what happened: the trigger, or mailbox.sla_escalation, or test'),
  subject_type: z.enum(['incident', 'mailbox_item', 'server', 'reset', 'operation', 'queue', 'dead_letters', 'destination']),
  subject_id: z.string().optional(),
  title: z.string().describe('one line for people: what happened, to what'),
  link: z.string().optional().describe('console path of the record, e.g. /incidents?selected=inc_… (absolute when the server knows its public URL only in what is sent)'),
  status: alertNoticeStatus.describe('pending (waiting or retrying), delivered, failed (retries exhausted; alert.notice_resend sends it again), cancelled (an escalation whose item was decided first)'),
  attempts: z.number().int(),
  last_error: z.string().optional().describe('the last failed attempt: HTTP status or network error'),
  created_at: timestamp,
  next_attempt_at: timestamp.optional(),
  delivered_at: timestamp.optional(),
});

export type AlertNotice = z.infer<typeof alertNotice>;

export const alertSilence = z.object({
  id: z.string(),
  rule_id: z.string().optional(),
  incident_id: z.string().optional(),
  until: timestamp,
  reason: z.string(),
  created_by: z.string().optional().describe('display name of the person who silenced'),
  created_at: timestamp,
  ended_at: timestamp.optional().describe('set when ended early with alert.silence_end'),
  active: z.boolean(),
});

export type AlertSilence = z.infer<typeof alertSilence>;

const destinationIds = z.array(z.string().min(1).max(100)).max(10);

export const alertRules = defineMethod({
  name: 'alert.rules',
  summary: 'Lists alert rules, with any active silence.',
  params: z.strictObject({}),
  result: z.object({ items: z.array(alertRule) }),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const alertRuleCreate = defineMethod({
  name: 'alert.rule_create',
  summary: 'Adds an alert rule: a trigger and the destinations it notifies.',
  params: z.strictObject({
    name: ruleName,
    when: alertTrigger,
    destination_ids: destinationIds.min(1),
    escalation_destination_ids: destinationIds.optional(),
    enabled: z.boolean().optional().describe('default true'),
    idempotency_key: idempotencyKey,
  }),
  result: z.object({ rule: alertRule }),
  errors: ['NOT_FOUND'],
  scope: 'alerts:write',
  mutating: true,
});

export const alertRuleUpdate = defineMethod({
  name: 'alert.rule_update',
  summary: 'Changes an alert rule (bundle rules too: the stored rule is what counts after boot).',
  params: z.strictObject({
    rule_id: entityId,
    name: ruleName.optional(),
    when: alertTrigger.optional(),
    destination_ids: destinationIds.min(1).optional(),
    escalation_destination_ids: destinationIds.optional(),
    enabled: z.boolean().optional(),
    idempotency_key: idempotencyKey,
  }),
  result: z.object({ rule: alertRule }),
  errors: ['NOT_FOUND'],
  scope: 'alerts:write',
  mutating: true,
});

export const alertRuleDelete = defineMethod({
  name: 'alert.rule_delete',
  summary: 'Deletes an alert rule; its past notices stay in the history.',
  params: z.strictObject({ rule_id: entityId, idempotency_key: idempotencyKey }),
  result: z.object({ rule_id: z.string(), deleted: z.literal(true) }),
  errors: ['NOT_FOUND'],
  scope: 'alerts:write',
  mutating: true,
});

export const alertDestinations = defineMethod({
  name: 'alert.destinations',
  summary: 'Lists notice destinations (never their secrets).',
  params: z.strictObject({}),
  result: z.object({ items: z.array(alertDestination) }),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const alertDestinationCreate = defineMethod({
  name: 'alert.destination_create',
  summary: 'Adds a destination; a webhook gets a signing secret that is in this answer only.',
  description:
    'webhook: notices are POSTed as JSON signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature headers); verify them with the secret. slack: a Slack incoming webhook URL, which is itself the secret and is never shown again in full.',
  params: z.strictObject({
    name: ruleName,
    kind: alertDestinationKind,
    url: z.url({ protocol: /^https?$/ }).max(2000),
    idempotency_key: idempotencyKey,
  }),
  result: z.object({
    destination: alertDestination,
    secret: z.string().optional().describe('webhook only: the signing secret (whsec_…), shown once; absent on an idempotent replay'),
  }),
  errors: [],
  scope: 'alerts:write',
  mutating: true,
});

export const alertDestinationDelete = defineMethod({
  name: 'alert.destination_delete',
  summary: 'Deletes a destination no rule uses; pending notices to it are cancelled.',
  params: z.strictObject({ destination_id: entityId, idempotency_key: idempotencyKey }),
  result: z.object({ destination_id: z.string(), deleted: z.literal(true) }),
  errors: ['NOT_FOUND', 'DESTINATION_IN_USE'],
  scope: 'alerts:write',
  mutating: true,
});

export const alertTest = defineMethod({
  name: 'alert.test',
  summary: 'Sends a test notice to a destination through the same durable path as real notices.',
  params: z.strictObject({ destination_id: entityId, idempotency_key: idempotencyKey }),
  result: z.object({ notice: alertNotice }),
  errors: ['NOT_FOUND'],
  scope: 'alerts:write',
  mutating: true,
});

export const alertNotices = defineMethod({
  name: 'alert.notices',
  summary: 'The history of notices, newest first, with their delivery status; keyset pages.',
  params: z.strictObject({
    rule_id: entityId.optional(),
    destination_id: entityId.optional(),
    status: alertNoticeStatus.optional(),
    subject_id: z.string().min(1).max(200).optional().describe('an incident, mailbox item, server, reset or operation id'),
    since: timestampParam.optional().describe('inclusive'),
    limit: pageLimit,
    cursor: pageCursor,
  }),
  result: z.object({ items: z.array(alertNotice), next_cursor: nextCursor }),
  errors: ['INVALID_CURSOR'],
  scope: 'read',
  mutating: false,
});

export const alertNoticeResend = defineMethod({
  name: 'alert.notice_resend',
  summary: 'Sends a failed notice again, with the same id, so the receiver can de-duplicate.',
  params: z.strictObject({ notice_id: entityId, idempotency_key: idempotencyKey }),
  result: z.object({ notice: alertNotice }),
  errors: ['NOT_FOUND', 'NOTICE_NOT_FAILED'],
  scope: 'alerts:write',
  mutating: true,
});

export const alertSilences = defineMethod({
  name: 'alert.silences',
  summary: 'Lists silences: active ones, and with include_ended those expired or ended.',
  params: z.strictObject({ include_ended: z.boolean().optional().describe('default false') }),
  result: z.object({ items: z.array(alertSilence) }),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const alertSilenceCreate = defineMethod({
  name: 'alert.silence_create',
  summary: 'Mutes a rule, or every rule for one incident, until a time, with a reason.',
  description: 'Exactly one of rule_id and incident_id. Transitions while silenced make no notice (they are not sent later).',
  params: z
    .strictObject({
      rule_id: entityId.optional(),
      incident_id: z.string().min(1).max(500).optional(),
      until: timestampParam.describe('must be in the future'),
      reason: z.string().trim().min(1).max(500),
      idempotency_key: idempotencyKey,
    })
    .refine((p) => (p.rule_id === undefined) !== (p.incident_id === undefined), { message: 'give exactly one of rule_id and incident_id' }),
  result: z.object({ silence: alertSilence }),
  errors: ['NOT_FOUND'],
  scope: 'alerts:write',
  mutating: true,
});

export const alertSilenceEnd = defineMethod({
  name: 'alert.silence_end',
  summary: 'Ends a silence now.',
  params: z.strictObject({ silence_id: entityId, idempotency_key: idempotencyKey }),
  result: z.object({ silence: alertSilence, already_ended: z.boolean() }),
  errors: ['NOT_FOUND'],
  scope: 'alerts:write',
  mutating: true,
});
