/**
 * The one table from `data.code` to words an operator understands, and what they can do about it.
 * Typed against the contract's registry, so a new server code fails the typecheck until it has a line here.
 */
import type { ErrorCode } from '@switchboard/contract';
import { isRole, ROLES } from '@switchboard/contract/roles';
import { ApiError, NETWORK_ERROR } from './client';

export interface ErrorExplanation {
  title: string;
  hint: string;
}

const serverCodes = {
  PARSE_ERROR: { title: 'The console sent a malformed request', hint: 'Reload the page; if it persists, report it with the correlation id.' },
  INVALID_REQUEST: { title: 'The console sent a request the server does not accept', hint: 'Reload the page; if it persists, report it with the correlation id.' },
  METHOD_NOT_FOUND: { title: 'This server does not offer that operation yet', hint: 'The server may be older than the console. Check the server version.' },
  INVALID_PARAMS: { title: 'Some filter values are not valid', hint: 'Check the filters (ids, dates, numbers) and try again.' },
  INTERNAL: { title: 'The server failed unexpectedly', hint: 'Try again. If it keeps failing, check the server log for the correlation id.' },
  UNAUTHENTICATED: { title: 'You are signed out', hint: 'The token is unknown, revoked or the session expired. Sign in again.' },
  FORBIDDEN: { title: 'Your role cannot do that', hint: 'Ask an admin for a role that can, or sign in as someone who can. Your role may have changed since the page loaded.' },
  NOT_FOUND: { title: 'Nothing with that id exists', hint: 'It may have been removed by a runtime reset, or the id is mistyped.' },
  INVALID_CURSOR: { title: 'The list position is no longer valid', hint: 'The filters changed or the link is old. Reload the list from the start.' },
  IDEMPOTENCY_CONFLICT: { title: 'That request key was already used for a different request', hint: 'Start the action again; the console will use a fresh key.' },
  IDEMPOTENCY_IN_PROGRESS: { title: 'The same request is still running', hint: 'Wait a moment, then check the result.' },
  BUNDLE_MISMATCH: { title: 'The bundle does not match the one the runtime booted with', hint: 'Use the fingerprint shown in the header, or omit the bundle reference.' },
  UNKNOWN_EVENT: { title: 'That event name is not in the bundle', hint: 'Pick an event from the bundle catalog.' },
  MAILBOX_NOT_PENDING: { title: 'This item was already decided', hint: 'It is no longer pending and cannot be decided again. Reload it to see the decision.' },
  STALE_DECISION_SHEET: { title: 'The entity changed since you opened this; review again', hint: 'Reload the decision sheet and review the entity as it is now.' },
  GATE_OVERRIDE_REQUIRED: {
    title: "Some of the entity's gates fail",
    hint: 'Approving anyway needs an override note saying why; it is kept with the decision.',
  },
  ALREADY_APPROVED: {
    title: 'You already approved this item',
    hint: 'Its type needs approvals from different people; another reviewer has to give the next one.',
  },
  RESET_IN_PROGRESS: { title: 'A runtime reset is in progress', hint: 'Wait for the reset to finish, then try again.' },
  PLAN_STALE: { title: 'The runtime changed since the plan was previewed', hint: 'Preview again (dry run or estimate) and review the new plan before applying.' },
  DESTINATION_IN_USE: { title: 'Alert rules still send to this destination', hint: 'Change those rules to another destination, or delete them, then delete the destination.' },
  NOTICE_NOT_FAILED: { title: 'Only a failed notice can be resent', hint: 'This notice is still being retried, was delivered or was cancelled.' },
  RATE_LIMITED: { title: 'Too many requests', hint: 'Wait a moment; the console retries by itself.' },
  PAYLOAD_TOO_LARGE: { title: 'The request is too large', hint: 'Send less data in one request.' },
  STORE_BUSY: { title: 'The store is busy', hint: 'Another writer is holding the database for a moment; try again.' },
  STORE_UNAVAILABLE: { title: 'The database connection was lost or refused', hint: 'The server is reconnecting to its database (a restart, a dropped connection, or no room for another connection); try again in a moment.' },
} as const satisfies Record<ErrorCode, ErrorExplanation>;

const consoleCodes: Record<string, ErrorExplanation> = {
  [NETWORK_ERROR]: { title: 'The server cannot be reached', hint: 'It may be restarting. The console reconnects by itself.' },
  INVALID_RESPONSE: { title: 'The server answered with something unexpected', hint: 'A proxy may be in the way. Reload the page.' },
};

const table: Record<string, ErrorExplanation> = { ...serverCodes, ...consoleCodes };

export function explainError(err: unknown): ErrorExplanation & { code: string; message: string; correlationId?: string; retryable: boolean } {
  if (err instanceof ApiError) {
    const entry = (err.code === 'FORBIDDEN' && explainRefusal(err.details)) || (table[err.code] ?? { title: 'The request failed', hint: 'Try again; if it persists, report the code and correlation id.' });
    return { ...entry, code: err.code, message: err.message, correlationId: err.correlationId, retryable: err.retryable };
  }
  const message = err instanceof Error ? err.message : String(err);
  return { title: 'Something went wrong in the console', hint: 'Reload the page.', code: 'CLIENT_ERROR', message, retryable: false };
}

/**
 * A refused call names what it needed: the least role holding the scope, and the caller's role
 * now (which may differ from the one the page loaded with, when an admin changed it meanwhile).
 */
function explainRefusal(details: Record<string, unknown>): ErrorExplanation | undefined {
  const scope = typeof details.required_scope === 'string' ? details.required_scope : undefined;
  const needs = isRole(details.needs_role) ? details.needs_role : undefined;
  const role = isRole(details.role) ? details.role : undefined;
  if (!scope && !needs) return undefined;
  const title = `This needs ${needs ? `the ${needs} role` : 'another scope'}${scope ? ` (scope ${scope})` : ''}`;
  const narrowed = role && needs && ROLES.indexOf(role) >= ROLES.indexOf(needs);
  const hint = narrowed
    ? `Your role (${role}) allows it, but this token is narrowed to fewer scopes. Sign in with another token, or ask an admin for one.`
    : `You are signed in as ${role ?? 'a role without it'}; your role may have changed since the page loaded. Ask an admin for a role that can, or sign in as someone who can.`;
  return { title, hint };
}
