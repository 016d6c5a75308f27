/** Alert rows as the contract shapes them (never a destination's secret). */
import type { AlertDestination, AlertNotice, AlertRule, AlertSilence, AlertTrigger } from '@switchboard/contract';
import { maskedUrl } from '@switchboard/runtime';
import type { AlertDestinationRecord, AlertNoticeRecord, AlertRuleRecord, AlertSilenceRecord } from '@switchboard/store';
import type { HandlerContext } from '../rpc/handler';
import { omitAbsent } from './omit-absent';

/**
 * A rule's destinations: its ids, and those of destinations its bundle names that exist now (a
 * named one created later starts receiving then).
 */
export function ruleResult(rule: AlertRuleRecord, destinations: readonly AlertDestinationRecord[], silencedUntil?: string): AlertRule {
  const idsNamed = (names: readonly string[]) => destinations.filter((d) => names.includes(d.name)).map((d) => d.id);
  const merged = (ids: readonly string[], names: readonly string[]) => [...new Set([...ids, ...idsNamed(names)])];
  return {
    id: rule.id,
    name: rule.name,
    when: rule.condition as AlertTrigger,
    destination_ids: merged(rule.destination_ids, rule.destination_names),
    escalation_destination_ids: merged(rule.escalation_destination_ids, rule.escalation_destination_names),
    enabled: rule.enabled,
    source: rule.source,
    created_at: rule.created_at,
    updated_at: rule.updated_at,
    ...(silencedUntil ? { silenced_until: silencedUntil } : {}),
  };
}

/** Each rule's latest active silence end, and every destination, to shape rules with. */
export async function ruleShaper(ctx: HandlerContext): Promise<(rule: AlertRuleRecord) => AlertRule> {
  const now = ctx.store.clock.now().toISOString();
  const [destinations, silences] = await Promise.all([ctx.store.alerts.destinations(), ctx.store.alerts.silences(now, false)]);
  const silencedUntil = new Map<string, string>();
  for (const s of silences) {
    if (s.rule_id && (silencedUntil.get(s.rule_id) ?? '') < s.until) silencedUntil.set(s.rule_id, s.until);
  }
  return (rule) => ruleResult(rule, destinations, silencedUntil.get(rule.id));
}

export function destinationResult(d: AlertDestinationRecord): AlertDestination {
  return omitAbsent({
    id: d.id,
    name: d.name,
    kind: d.kind as AlertDestination['kind'],
    url: maskedUrl(d),
    created_at: d.created_at,
    created_by: d.created_by,
  });
}

export function noticeResult(n: AlertNoticeRecord): AlertNotice {
  return omitAbsent({
    id: n.id,
    rule_id: n.rule_id,
    rule_name: n.rule_name,
    destination_id: n.destination_id,
    destination_name: n.destination_name,
    kind: n.kind as AlertNotice['kind'],
    transition: n.transition as AlertNotice['transition'],
    subject_type: n.subject_type as AlertNotice['subject_type'],
    subject_id: n.subject_id,
    title: n.title,
    link: n.link,
    status: n.status as AlertNotice['status'],
    attempts: Number(n.attempts),
    last_error: n.last_error,
    created_at: n.created_at,
    next_attempt_at: n.status === 'pending' ? n.next_attempt_at : null,
    delivered_at: n.delivered_at,
  });
}

export function silenceResult(s: AlertSilenceRecord, now: string): AlertSilence {
  return omitAbsent({
    id: s.id,
    rule_id: s.rule_id,
    incident_id: s.incident_id,
    until: s.until,
    reason: s.reason,
    created_by: s.created_by,
    created_at: s.created_at,
    ended_at: s.ended_at,
    active: s.ended_at === null && s.until > now,
  });
}
