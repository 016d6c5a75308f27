/**
 * Alert configuration as the control API changes it: rules, destinations, silences, test notices
 * and resends. Each change commits with the caller's commit hook (the audit record and idempotent
 * answer) and tells the notice maker to reload what it keeps in memory.
 */
import { randomBytes } from 'node:crypto';
import { RpcError, type AlertTrigger } from '@switchboard/contract';
import {
  AlertNameTakenError,
  DestinationInUseError,
  type AlertDestinationRecord,
  type AlertNoticeRecord,
  type AlertRuleRecord,
  type AlertSilenceRecord,
  type Clock,
  type Store,
} from '@switchboard/store';
import type { OnEffectCommit } from '../effect-commit';
import { newId } from '../ids';
import { testNotice } from './notice-content';

export interface RuleInput {
  name: string;
  when: AlertTrigger;
  destination_ids: string[];
  escalation_destination_ids?: string[];
  enabled?: boolean;
}

export interface RuleChanges {
  name?: string;
  when?: AlertTrigger;
  destination_ids?: string[];
  escalation_destination_ids?: string[];
  enabled?: boolean;
}

export interface DestinationInput {
  name: string;
  kind: 'webhook' | 'slack';
  url: string;
  createdBy?: string;
}

export interface SilenceInput {
  rule_id?: string;
  incident_id?: string;
  until: string;
  reason: string;
  createdBy?: string;
}

/** A Standard Webhooks signing secret: whsec_ and 24 random bytes in base64. */
export function newWebhookSecret(): string {
  return 'whsec_' + randomBytes(24).toString('base64');
}

function nameTaken(err: unknown, field: string): never {
  if (err instanceof AlertNameTakenError) throw new RpcError('INVALID_PARAMS', `${err.message}; choose another name`, { field });
  throw err;
}

export class AlertConfig {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    /** Called after a committed change: this process reloads its rules before the call answers. */
    private readonly changed: () => Promise<void>,
    /** Wakes the sender: a notice is due now. */
    private readonly noticeDue: () => void,
  ) {}

  private async requireDestinations(ids: readonly string[], field: string): Promise<void> {
    const unknown = await this.store.alerts.unknownDestinationIds(ids);
    if (unknown.length) throw new RpcError('NOT_FOUND', `No destination with id ${unknown.join(', ')}`, { resource: 'destination', id: unknown[0], field });
  }

  private checkEscalation(when: AlertTrigger, escalation: readonly string[]): void {
    if (escalation.length && when.trigger !== 'mailbox.sla') {
      throw new RpcError('INVALID_PARAMS', 'escalation_destination_ids go with the mailbox.sla trigger only', { field: 'escalation_destination_ids' });
    }
  }

  async createRule(input: RuleInput, onCommit?: OnEffectCommit<AlertRuleRecord>): Promise<AlertRuleRecord> {
    const escalation = [...new Set(input.escalation_destination_ids ?? [])];
    this.checkEscalation(input.when, escalation);
    const destinations = [...new Set(input.destination_ids)];
    await this.requireDestinations([...destinations, ...escalation], 'destination_ids');
    const now = this.clock.now();
    const rule: AlertRuleRecord = {
      id: newId('alr', now),
      name: input.name,
      trigger: input.when.trigger,
      condition: input.when,
      destination_ids: destinations,
      escalation_destination_ids: escalation,
      destination_names: [],
      escalation_destination_names: [],
      enabled: input.enabled ?? true,
      source: 'api',
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    };
    await this.store
      .transaction(async (tx) => {
        await this.store.alerts.createRule(rule, tx);
        await onCommit?.(tx, rule);
      })
      .catch((err: unknown) => nameTaken(err, 'name'));
    await this.changed();
    return rule;
  }

  async updateRule(id: string, changes: RuleChanges, onCommit?: OnEffectCommit<AlertRuleRecord>): Promise<AlertRuleRecord> {
    const before = await this.store.alerts.rule(id);
    if (!before) throw new RpcError('NOT_FOUND', `No alert rule with id ${id}`, { resource: 'alert_rule', id });
    const when = (changes.when ?? before.condition) as AlertTrigger;
    // An explicit list replaces what the bundle named: from then on the API owns the rule's destinations.
    const destinationIds = changes.destination_ids ? [...new Set(changes.destination_ids)] : before.destination_ids;
    const escalationIds = changes.escalation_destination_ids ? [...new Set(changes.escalation_destination_ids)] : before.escalation_destination_ids;
    const escalationNames = changes.escalation_destination_ids ? [] : before.escalation_destination_names;
    // A rule that keeps escalation destinations must stay a mailbox.sla rule.
    this.checkEscalation(when, [...escalationIds, ...escalationNames]);
    await this.requireDestinations([...(changes.destination_ids ?? []), ...(changes.escalation_destination_ids ?? [])], 'destination_ids');
    const rule: AlertRuleRecord = {
      ...before,
      name: changes.name ?? before.name,
      trigger: when.trigger,
      condition: when,
      destination_ids: destinationIds,
      destination_names: changes.destination_ids ? [] : before.destination_names,
      escalation_destination_ids: escalationIds,
      escalation_destination_names: escalationNames,
      enabled: changes.enabled ?? before.enabled,
      updated_at: this.clock.now().toISOString(),
    };
    const updated = await this.store
      .transaction(async (tx) => {
        const after = await this.store.alerts.updateRule(rule, tx);
        if (after) await onCommit?.(tx, after);
        return after;
      })
      .catch((err: unknown) => nameTaken(err, 'name'));
    if (!updated) throw new RpcError('NOT_FOUND', `No alert rule with id ${id}`, { resource: 'alert_rule', id });
    await this.changed();
    return updated;
  }

  async deleteRule(id: string, onCommit?: OnEffectCommit<string>): Promise<void> {
    const deleted = await this.store.transaction(async (tx) => {
      const found = await this.store.alerts.deleteRule(id, tx);
      if (found) await onCommit?.(tx, id);
      return found;
    });
    if (!deleted) throw new RpcError('NOT_FOUND', `No alert rule with id ${id}`, { resource: 'alert_rule', id });
    await this.changed();
  }

  async createDestination(input: DestinationInput, onCommit?: OnEffectCommit<AlertDestinationRecord>): Promise<{ destination: AlertDestinationRecord; secret?: string }> {
    const now = this.clock.now();
    const secret = input.kind === 'webhook' ? newWebhookSecret() : undefined;
    const destination: AlertDestinationRecord = {
      id: newId('dst', now),
      name: input.name,
      kind: input.kind,
      url: input.url,
      secret: secret ?? null,
      created_at: now.toISOString(),
      created_by: input.createdBy ?? null,
    };
    await this.store
      .transaction(async (tx) => {
        await this.store.alerts.createDestination(destination, tx);
        await onCommit?.(tx, destination);
      })
      .catch((err: unknown) => nameTaken(err, 'name'));
    await this.changed();
    return { destination, ...(secret ? { secret } : {}) };
  }

  async deleteDestination(id: string, onCommit?: OnEffectCommit<string>): Promise<void> {
    const now = this.clock.now().toISOString();
    const deleted = await this.store
      .transaction(async (tx) => {
        const found = await this.store.alerts.deleteDestination(id, now, tx);
        if (found) await onCommit?.(tx, id);
        return found;
      })
      .catch((err: unknown) => {
        if (err instanceof DestinationInUseError) {
          throw new RpcError('DESTINATION_IN_USE', `Alert rules still send to destination ${id}: ${err.ruleNames.join(', ')}`, { destination_id: id, rules: err.ruleNames });
        }
        throw err;
      });
    if (!deleted) throw new RpcError('NOT_FOUND', `No destination with id ${id}`, { resource: 'destination', id });
    await this.changed();
  }

  /** A test notice to a destination, through the outbox like any other. */
  async sendTest(destinationId: string, sentBy: string | undefined, onCommit?: OnEffectCommit<AlertNoticeRecord>): Promise<AlertNoticeRecord> {
    const destination = await this.store.alerts.destination(destinationId);
    if (!destination) throw new RpcError('NOT_FOUND', `No destination with id ${destinationId}`, { resource: 'destination', id: destinationId });
    const notice = testNotice(destination, sentBy, this.clock.now());
    await this.store.transaction(async (tx) => {
      await this.store.alerts.notices.insert([notice], tx);
      await onCommit?.(tx, notice);
    });
    this.noticeDue();
    return notice;
  }

  async resend(noticeId: string, onCommit?: OnEffectCommit<AlertNoticeRecord>): Promise<AlertNoticeRecord> {
    const now = this.clock.now().toISOString();
    const notice = await this.store.transaction(async (tx) => {
      const resent = await this.store.alerts.notices.resend(noticeId, now, tx);
      if (resent) await onCommit?.(tx, resent);
      return resent;
    });
    if (!notice) {
      const known = await this.store.alerts.notices.get(noticeId);
      if (!known) throw new RpcError('NOT_FOUND', `No notice with id ${noticeId}`, { resource: 'notice', id: noticeId });
      throw new RpcError('NOTICE_NOT_FAILED', `Notice ${noticeId} is ${known.status}; only a failed notice is sent again`, { notice_id: noticeId, status: known.status });
    }
    this.noticeDue();
    return notice;
  }

  async createSilence(input: SilenceInput, onCommit?: OnEffectCommit<AlertSilenceRecord>): Promise<AlertSilenceRecord> {
    const now = this.clock.now();
    if (input.until <= now.toISOString()) throw new RpcError('INVALID_PARAMS', 'until must be in the future', { field: 'until' });
    if (input.rule_id !== undefined && !(await this.store.alerts.rule(input.rule_id))) {
      throw new RpcError('NOT_FOUND', `No alert rule with id ${input.rule_id}`, { resource: 'alert_rule', id: input.rule_id });
    }
    const silence: AlertSilenceRecord = {
      id: newId('sil', now),
      rule_id: input.rule_id ?? null,
      incident_id: input.incident_id ?? null,
      until: input.until,
      reason: input.reason,
      created_by: input.createdBy ?? null,
      created_at: now.toISOString(),
      ended_at: null,
    };
    await this.store.transaction(async (tx) => {
      await this.store.alerts.createSilence(silence, tx);
      await onCommit?.(tx, silence);
    });
    await this.changed();
    return silence;
  }

  async endSilence(id: string, onCommit?: OnEffectCommit<{ silence: AlertSilenceRecord; ended: boolean }>): Promise<{ silence: AlertSilenceRecord; ended: boolean }> {
    const now = this.clock.now().toISOString();
    const outcome = await this.store.transaction(async (tx) => {
      const ended = await this.store.alerts.endSilence(id, now, tx);
      if (ended) await onCommit?.(tx, ended);
      return ended;
    });
    if (!outcome) throw new RpcError('NOT_FOUND', `No silence with id ${id}`, { resource: 'silence', id });
    await this.changed();
    return outcome;
  }
}
