/**
 * One mailbox item for review: what it is, the decision (or the buttons to make it), the decision
 * sheet, the payload and the history.
 */
import type { Result } from '@switchboard/contract';
import { Link } from 'react-router';
import { paths } from '../../paths';
import { ActorLabel } from '../../ui/ActorLabel';
import { DetailPanel } from '../../ui/DetailPanel';
import { CopyId } from '../../ui/CopyId';
import { ErrorState } from '../../ui/ErrorState';
import { JsonTree } from '../../ui/JsonTree';
import { LoadingState } from '../../ui/LoadingState';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { approvalProgress, approveUnavailable } from './approval-rules';
import type { DecisionMode, DecisionOutcome } from './DecisionDialog';
import { DecidedSheet, DownstreamPreview, EntityContext } from './DecisionSheet';
import { MailboxHistory } from './MailboxHistory';
import { PRIORITY_TONE, STATUS_TONE } from './mailbox-format';
import { useViewer } from './use-viewer';
import { GuardedButton } from '../../ui/GuardedButton';
import { useCan } from '../../api/access';
import './MailboxReview.css';

type Review = Result<'mailbox.get'>;

export function MailboxReview({
  mailboxId,
  query,
  outcome,
  onDecide,
  onClose,
  onNext,
}: {
  mailboxId: string;
  query: { isPending: boolean; isError: boolean; error: unknown; data: Review | undefined; refetch: () => unknown };
  outcome: DecisionOutcome | null;
  onDecide: (mode: DecisionMode) => void;
  onClose: () => void;
  onNext: (() => void) | undefined;
}) {
  const review = query.data;
  const title = review ? review.item.type : 'Mailbox item';
  return (
    <DetailPanel title={title} label="Mailbox item review" onClose={onClose}>
      {query.isPending ? (
        <LoadingState label="Loading the item" />
      ) : query.isError || !review ? (
        <ErrorState error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <ReviewBody review={review} outcome={outcome?.mailbox_id === mailboxId ? outcome : null} onDecide={onDecide} onNext={onNext} />
      )}
    </DetailPanel>
  );
}

function ReviewBody({
  review,
  outcome,
  onDecide,
  onNext,
}: {
  review: Review;
  outcome: DecisionOutcome | null;
  onDecide: (mode: DecisionMode) => void;
  onNext: (() => void) | undefined;
}) {
  const { item, history, decision_sheet: sheet } = review;
  const mayDecide = useCan('mailbox:decide').allowed;
  const decisionEntry = [...history].reverse().find((h) => h.action !== 'created');
  const viewer = useViewer();
  const progress = approvalProgress(review);
  const cannotApprove = approveUnavailable(review, viewer);
  return (
    <div className="review" data-testid="mailbox-review" data-status={item.status}>
      <dl className="kv">
        <dt>Status</dt>
        <dd>
          <StatusBadge value={item.status} tone={STATUS_TONE[item.status]} />
        </dd>
        <dt>Priority</dt>
        <dd>
          <StatusBadge value={item.priority} tone={PRIORITY_TONE[item.priority]} />
        </dd>
        <dt>Item id</dt>
        <dd>
          <CopyId id={item.mailbox_id} what="mailbox item id" />
        </dd>
        <dt>Source flow</dt>
        <dd className="mono">{item.source_flow}</dd>
        <dt>Opened</dt>
        <dd>
          <RelativeTime iso={item.created_at} />
        </dd>
        {item.source_event_id && (
          <>
            <dt>Source event</dt>
            <dd>
              <Link to={paths.event(item.source_event_id)} className="mono">
                {item.source_event_id}
              </Link>
            </dd>
          </>
        )}
      </dl>

      {outcome && <OutcomeNotice outcome={outcome} onNext={onNext} />}

      {progress && (
        <p className="approval-progress" data-testid="approval-progress">
          <strong>{progress.text}</strong>
          {progress.names.length > 0 && <> · approved by {progress.names.join(', ')}</>}
        </p>
      )}

      {item.status === 'pending' ? (
        <div className="decision-bar" role="group" aria-label="Decision">
          <GuardedButton
            action="mailbox.approve"
            className="btn btn-primary"
            onClick={() => onDecide('approve')}
            disabled={cannotApprove !== null}
            title={cannotApprove ?? undefined}
            aria-describedby={cannotApprove ? 'approve-unavailable' : undefined}
            data-testid="approve-button"
          >
            Approve…
          </GuardedButton>
          <GuardedButton action="mailbox.reject" className="btn btn-danger" onClick={() => onDecide('reject')} data-testid="reject-button">
            Reject…
          </GuardedButton>
          <span className="muted small kbd-hint">
            {mayDecide && (
              <>
                <kbd>a</kbd> approve · <kbd>r</kbd> reject ·{' '}
              </>
            )}
            <kbd>j</kbd>/<kbd>k</kbd> next/previous
          </span>
          {cannotApprove && (
            <p id="approve-unavailable" className="approve-unavailable small" data-testid="approve-unavailable">
              {cannotApprove}
            </p>
          )}
        </div>
      ) : (
        <div className={`decided decided-${item.status}`} data-testid="decided">
          <p>
            <strong>{item.status === 'approved' ? 'Approved' : 'Rejected'}</strong>
            {decisionEntry && (
              <>
                {' '}
                by <ActorLabel id={decisionEntry.actor_token_id} name={decisionEntry.actor_token_name} />
              </>
            )}
            {item.decided_at && (
              <>
                {' '}
                <RelativeTime iso={item.decided_at} />
              </>
            )}
          </p>
          {decisionEntry?.reason_code && (
            <p>
              Reason code <code className="reason-code">{decisionEntry.reason_code}</code>
              {review.reject_reasons.find((r) => r.code === decisionEntry.reason_code) ? ` · ${review.reject_reasons.find((r) => r.code === decisionEntry.reason_code)!.label}` : ''}
            </p>
          )}
          {decisionEntry?.reason && <p className="timeline-reason">“{decisionEntry.reason}”</p>}
          <p className="muted small">This item is closed and cannot be decided again.</p>
        </div>
      )}

      {item.status === 'pending' ? (
        <>
          <h3>If approved</h3>
          <DownstreamPreview preview={sheet.downstream_preview} />
          <h3>Entity</h3>
          <EntityContext context={sheet.entity_context} />
        </>
      ) : (
        <DecidedSheet review={review} />
      )}
      <h3>Payload</h3>
      <JsonTree value={review.payload} fileName={`${item.mailbox_id}-payload.json`} />
      <h3>History</h3>
      <MailboxHistory history={history} />
    </div>
  );
}

function OutcomeNotice({ outcome, onNext }: { outcome: DecisionOutcome; onNext: (() => void) | undefined }) {
  return (
    <div className="callout callout-ok" role="status" data-testid="decision-outcome">
      {outcome.mode === 'reject' ? (
        <p>
          <strong>Rejected.</strong> No downstream event was emitted.
        </p>
      ) : outcome.status === 'pending' ? (
        <p>
          <strong>Approval recorded.</strong> {outcome.approvals?.length ?? 1} of {outcome.approvals_required ?? 2} approvals: the item stays pending until someone else approves it; nothing was emitted yet.
        </p>
      ) : outcome.downstream_event_id ? (
        <p>
          <strong>Approved.</strong> Emitted <code className="event-name">{outcome.downstream_event_name}</code>
          {outcome.downstream_subscribers?.length ? <> to {outcome.downstream_subscribers.join(', ')}</> : null}.{' '}
          <Link to={paths.event(outcome.downstream_event_id)} data-testid="downstream-event-link">
            Open the event in the event browser
          </Link>
        </p>
      ) : (
        <p>
          <strong>Approved.</strong> No event was emitted (this item has no approval route).
        </p>
      )}
      {outcome.idempotency_replayed && <p className="small muted">The server had already recorded this decision; it was not made twice.</p>}
      {onNext && (
        <button type="button" className="btn btn-small" onClick={onNext}>
          Next item
        </button>
      )}
    </div>
  );
}
