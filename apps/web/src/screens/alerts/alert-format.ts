/**
 * Alerts in words: what a rule watches, durations, and where a notice's record opens. Typed
 * against the contract, so a new trigger or transition fails the typecheck until it reads here.
 */
import type { AlertNotice, AlertTrigger } from '@switchboard/contract';
import { paths } from '../../paths';

export type TriggerName = AlertTrigger['trigger'];

/** The trigger select's choices, in the order a person looks for them. */
export const TRIGGER_LABELS: Record<TriggerName, string> = {
  'incident.opened': 'Incident opened',
  'incident.regressed': 'Incident regressed',
  'incident.occurrences': 'Incident over N occurrences in a window',
  'mailbox.sla': 'Mailbox item past its SLA',
  'dead_letters.rate': 'Dead letters per minute over a threshold',
  'queue.oldest_pending': 'Oldest pending delivery older than',
  'server.dead': 'Server declared dead',
  'reset.applied': 'Runtime reset applied',
  'operation.failed': 'Redrive or replay finished with failures',
};

export const TRIGGER_NAMES = Object.keys(TRIGGER_LABELS) as TriggerName[];

const TRANSITION_LABELS: Record<AlertNotice['transition'], string> = {
  ...TRIGGER_LABELS,
  'mailbox.sla_escalation': 'Mailbox SLA escalation',
  test: 'Test notice',
};

export function transitionLabel(transition: AlertNotice['transition']): string {
  return TRANSITION_LABELS[transition] ?? transition;
}

const UNITS: [string, number][] = [
  ['d', 86_400],
  ['h', 3_600],
  ['min', 60],
  ['s', 1],
];

/** 90 → "1 min 30 s", 3600 → "1 h", 0 → "0 s". */
export function formatSeconds(total: number): string {
  if (total <= 0) return '0 s';
  const parts: string[] = [];
  let rest = Math.round(total);
  for (const [unit, size] of UNITS) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)} ${unit}`);
      rest %= size;
    }
  }
  return parts.slice(0, 2).join(' ');
}

const levelWords = (minLevel: 'warn' | 'error' | undefined) => (minLevel === 'error' ? ' (error level)' : '');

/** What a rule watches, as a sentence: "An incident occurs 100 times within 5 min". */
export function describeTrigger(when: AlertTrigger): string {
  switch (when.trigger) {
    case 'incident.opened':
      return `An incident opens${levelWords(when.min_level)}`;
    case 'incident.regressed':
      return `A resolved incident comes back${levelWords(when.min_level)}`;
    case 'incident.occurrences':
      return `An incident occurs ${when.threshold.toLocaleString('en')} time${when.threshold === 1 ? '' : 's'} within ${formatSeconds(when.window_s)}`;
    case 'mailbox.sla':
      return when.mailbox_type ? `A “${when.mailbox_type}” mailbox item waits past its SLA` : 'A mailbox item waits past its type’s SLA';
    case 'dead_letters.rate':
      return `${when.per_minute.toLocaleString('en')} or more dead letters in a minute`;
    case 'queue.oldest_pending':
      return `The oldest pending delivery is older than ${formatSeconds(when.older_than_s)}`;
    case 'server.dead':
      return 'A server is declared dead';
    case 'reset.applied':
      return 'A runtime reset is applied';
    case 'operation.failed':
      return 'A redrive or replay finishes with failures';
  }
}

/**
 * Where a notice's record opens in this console. The console's own paths come first (they follow
 * the console's routes); a server-given link is used only when it is a path on this origin.
 */
export function noticeRecordPath(notice: Pick<AlertNotice, 'subject_type' | 'subject_id' | 'link'>): string | undefined {
  const id = notice.subject_id;
  switch (notice.subject_type) {
    case 'incident':
      if (id) return paths.incident(id);
      break;
    case 'mailbox_item':
      if (id) return paths.mailbox(id);
      break;
    case 'operation':
      if (id) return paths.operation(id);
      break;
    case 'server':
      return paths.servers();
    case 'dead_letters':
      return '/dead-letters';
    case 'destination':
      return paths.alerts('destinations');
    default:
      break;
  }
  return sameOriginPath(notice.link);
}

/** "/incidents?…" yes; "//evil.example", "https://…" and "javascript:…" no. */
export function sameOriginPath(link: string | undefined): string | undefined {
  if (!link || !link.startsWith('/') || link.startsWith('//') || link.startsWith('/\\')) return undefined;
  return link;
}
