/** Words and tones for mailbox values, shared by the queue and the review. */
import type { MailboxItem } from '@switchboard/contract';

type Tone = 'bad' | 'warn' | 'ok' | 'info' | 'neutral';

export const STATUS_TONE: Record<MailboxItem['status'], Tone> = { pending: 'warn', approved: 'ok', rejected: 'bad' };
export const PRIORITY_TONE: Record<MailboxItem['priority'], Tone> = { urgent: 'bad', high: 'warn', normal: 'neutral', low: 'neutral' };

export const STATUSES: MailboxItem['status'][] = ['pending', 'approved', 'rejected'];
export const PRIORITIES: MailboxItem['priority'][] = ['urgent', 'high', 'normal', 'low'];

/** A one-line summary of a payload for the queue: its first few scalar members. */
export function payloadSummary(payload: Record<string, unknown>, max = 3): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(payload)) {
    if (value === null || typeof value === 'object') continue;
    parts.push(`${key}: ${String(value)}`);
    if (parts.length >= max) break;
  }
  return parts.join(' · ');
}

export const REASON_MAX = 2000;

/** Reasons a reviewer often gives; picking one fills the reason field, which stays editable. */
export const QUICK_REASONS = [
  'Duplicate of an earlier request',
  'Amount is not supported by the order',
  'Needs more information from the customer',
  'Suspected fraud: escalate to the risk team',
  'Outside the refund policy',
];

/** A reject reason is valid when it is not empty or only whitespace, and not too long. */
export function reasonProblem(reason: string): string | null {
  if (reason.trim().length === 0) return 'Write a reason: it cannot be empty or only spaces.';
  if (reason.trim().length > REASON_MAX) return `The reason is too long: at most ${REASON_MAX} characters.`;
  return null;
}
