/**
 * The two-person rule as the decision sheet explains it: how far an item's approvals are and why
 * the signed-in person may not approve it. The server enforces the same rules; this only says so
 * before anyone clicks.
 */
import type { MailboxApproval, MailboxDeciders, Result } from '@switchboard/contract';
import { roleScopes, type Role } from '@switchboard/contract/roles';

type Review = Result<'mailbox.get'>;

/** The signed-in person, as far as the session says. */
export interface Viewer {
  userId: string;
  role: Role;
}

/** "1 of 2 approvals" once a type needs more than one, or once someone approved. */
export function approvalProgress(review: Pick<Review, 'approvals' | 'deciders'>): { text: string; names: string[] } | null {
  const approvals: MailboxApproval[] = review.approvals ?? [];
  const required = review.deciders?.approvals_required ?? 1;
  if (required <= 1 && approvals.length === 0) return null;
  return { text: `${approvals.length} of ${required} approval${required === 1 ? '' : 's'}`, names: approvals.map((a) => a.user_name) };
}

function whoMayDecide(deciders: MailboxDeciders): string {
  const parts = [deciders.roles.length ? deciders.roles.join(' or ') : '', deciders.user_ids.length ? `the named users (${deciders.user_ids.join(', ')})` : ''].filter(Boolean);
  return parts.join(' or ');
}

/** Why this person may not approve this pending item; null when they may (or the session does not say who they are). */
export function approveUnavailable(
  review: Pick<Review, 'approvals' | 'deciders' | 'run_started_by_user_id'> & { item: Pick<Review['item'], 'status' | 'type'> },
  viewer: Viewer | null,
): string | null {
  if (!viewer || review.item.status !== 'pending') return null;
  if (!roleScopes[viewer.role].includes('mailbox:decide')) return `Your role (${viewer.role}) may not decide mailbox items; it needs reviewer.`;
  const deciders = review.deciders;
  if (deciders && (deciders.roles.length > 0 || deciders.user_ids.length > 0) && !deciders.roles.includes(viewer.role) && !deciders.user_ids.includes(viewer.userId)) {
    return `Your role (${viewer.role}) may not decide ${review.item.type} items; they are decided by ${whoMayDecide(deciders)}.`;
  }
  if ((review.approvals ?? []).some((a) => a.user_id === viewer.userId)) {
    return 'You already approved this item; it needs an approval from someone else.';
  }
  if (review.run_started_by_user_id === viewer.userId) return 'You started this run, so someone else has to approve its item.';
  return null;
}
