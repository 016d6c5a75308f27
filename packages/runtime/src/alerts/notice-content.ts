/**
 * What a notice says: its row in the outbox, and the bodies sent to a webhook (Standard Webhooks:
 * type, timestamp, data) and to Slack (a readable line with a link back to the console).
 */
import type { AlertDestinationRecord, AlertNoticeRecord, AlertRuleRecord } from '@switchboard/store';
import { newId } from '../ids';

/** What happened, to what: one transition of one subject. */
export interface NoticeSubject {
  transition: string;
  subject_type: string;
  subject_id?: string;
  /** One line for people. */
  title: string;
  /** Console path of the record. */
  link?: string;
  /** Details of the subject sent as the webhook's data. */
  data: Record<string, unknown>;
  /** Tells apart repeated transitions of one subject (a second regression, a second episode). */
  episode: string;
}

/** The outbox row of a notice to one destination; due at `dueAt` (now unless deferred). */
export function noticeRecord(rule: AlertRuleRecord | undefined, destination: AlertDestinationRecord, subject: NoticeSubject, now: Date, dueAt: Date = now): AlertNoticeRecord {
  return {
    id: newId('ntc', now),
    rule_id: rule?.id ?? null,
    rule_name: rule?.name ?? null,
    destination_id: destination.id,
    destination_name: destination.name,
    kind: destination.kind,
    transition: subject.transition,
    subject_type: subject.subject_type,
    subject_id: subject.subject_id ?? null,
    title: subject.title,
    link: subject.link ?? null,
    body: JSON.stringify(subject.data),
    status: 'pending',
    attempts: 0,
    next_attempt_at: dueAt.toISOString(),
    lease_owner: null,
    lease_until: null,
    last_error: null,
    created_at: now.toISOString(),
    delivered_at: null,
    dedupe_key: rule ? [rule.id, destination.id, subject.transition, subject.subject_id ?? '', subject.episode].join('|') : null,
  };
}

export function testNotice(destination: AlertDestinationRecord, sentBy: string | undefined, now: Date): AlertNoticeRecord {
  return noticeRecord(
    undefined,
    destination,
    {
      transition: 'test',
      subject_type: 'destination',
      subject_id: destination.id,
      title: `Test notice to ${destination.name}${sentBy ? `, sent by ${sentBy}` : ''}`,
      link: '/alerts',
      data: { destination_id: destination.id, destination_name: destination.name, ...(sentBy ? { sent_by: sentBy } : {}) },
      episode: '',
    },
    now,
  );
}

/** A console path made absolute when the server's public URL is known. */
export function absoluteLink(link: string | null, publicUrl: string | undefined): string | undefined {
  if (!link) return undefined;
  return publicUrl ? publicUrl.replace(/\/+$/, '') + link : link;
}

/** The JSON a webhook receives (Standard Webhooks' recommended shape). */
export function webhookBody(notice: AlertNoticeRecord, publicUrl: string | undefined): string {
  const link = absoluteLink(notice.link, publicUrl);
  return JSON.stringify({
    type: notice.transition,
    timestamp: notice.created_at,
    data: {
      ...(JSON.parse(notice.body) as Record<string, unknown>),
      notice_id: notice.id,
      ...(notice.rule_id ? { rule_id: notice.rule_id, rule_name: notice.rule_name } : {}),
      subject_type: notice.subject_type,
      ...(notice.subject_id ? { subject_id: notice.subject_id } : {}),
      title: notice.title,
      ...(link ? { link } : {}),
    },
  });
}

/** Slack's mrkdwn escapes: &, < and > would otherwise start entities and links. */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A Slack incoming-webhook message: a line of text (notifications) and blocks with the link. */
export function slackBody(notice: AlertNoticeRecord, publicUrl: string | undefined): string {
  const link = absoluteLink(notice.link, publicUrl);
  const line = `${slackEscape(notice.title)}${notice.rule_name ? ` (rule ${slackEscape(notice.rule_name)})` : ''}`;
  const withLink = link ? `${line}\n<${link}|Open in Switchboard>` : line;
  return JSON.stringify({
    text: link ? `${notice.title} ${link}` : notice.title,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: withLink } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: `${notice.transition} · ${notice.created_at} · notice ${notice.id}` }] },
    ],
  });
}

/** A Slack webhook URL shown without its secret path. */
export function maskedUrl(destination: Pick<AlertDestinationRecord, 'kind' | 'url'>): string {
  if (destination.kind !== 'slack') return destination.url;
  try {
    return `${new URL(destination.url).origin}/…`;
  } catch {
    return '…';
  }
}
