/**
 * Approve or reject one mailbox item. Reject needs a stated reason and says that nothing will be
 * emitted; approve shows exactly what will be emitted and sends the entity revision the reviewer
 * saw. One idempotency key per opening of the dialog: a double click or a retry decides once.
 */
import { useId, useRef, useState, type FormEvent } from 'react';
import type { Result } from '@switchboard/contract';
import { ApiError } from '../../api/client';
import { useApproveItem, useRejectItem } from '../../api/mailbox';
import { ErrorState } from '../../ui/ErrorState';
import { JsonTree } from '../../ui/JsonTree';
import { Modal, useDialogKey } from '../../ui/Modal';
import { QUICK_REASONS, REASON_MAX, reasonProblem } from './mailbox-format';
import './DecisionDialog.css';

export type DecisionMode = 'approve' | 'reject';
type Review = Result<'mailbox.get'>;
export type DecisionOutcome = Result<'mailbox.reject'> & { mode: DecisionMode; mailbox_id: string };

export function DecisionDialog({
  mode,
  review,
  onClose,
  onDecided,
  onReload,
}: {
  mode: DecisionMode | null;
  /** The review as the reviewer saw it when they opened the dialog. */
  review: Review;
  onClose: () => void;
  onDecided: (outcome: DecisionOutcome) => void;
  onReload: () => void;
}) {
  const open = mode !== null;
  const { key } = useDialogKey(open);
  const reject = useRejectItem();
  const approve = useApproveItem();
  const [reason, setReason] = useState('');
  const [reasonCode, setReasonCode] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const ids = { reason: useId(), hint: useId(), count: useId(), problem: useId() };
  const mutation = mode === 'approve' ? approve : reject;
  const busy = mutation.isPending;
  const item = review.item;
  const preview = review.decision_sheet.downstream_preview;
  const entity = review.decision_sheet.entity_context.entity?.entity;
  const emits = preview.available && preview.event_name;

  const close = () => {
    if (busy) return;
    reject.reset();
    approve.reset();
    setReason('');
    setReasonCode(null);
    setProblem(null);
    onClose();
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    if (mode === 'reject') {
      const p = reasonProblem(reason);
      setProblem(p);
      if (p) {
        reasonRef.current?.focus();
        return;
      }
      reject.mutate(
        { mailbox_id: item.mailbox_id, reason: reason.trim(), ...(reasonCode ? { reason_code: reasonCode } : {}), idempotency_key: key },
        { onSuccess: (r) => finish({ ...r, mode: 'reject', mailbox_id: item.mailbox_id }) },
      );
    } else {
      const trimmed = reason.trim();
      if (trimmed.length > REASON_MAX) {
        setProblem(`The note is too long: at most ${REASON_MAX} characters.`);
        return;
      }
      approve.mutate(
        {
          mailbox_id: item.mailbox_id,
          idempotency_key: key,
          ...(trimmed ? { reason: trimmed } : {}),
          ...(entity ? { expected_entity_revision: entity.revision } : {}),
        },
        { onSuccess: (r) => finish({ ...r, mode: 'approve', mailbox_id: item.mailbox_id }) },
      );
    }
  };

  const finish = (outcome: DecisionOutcome) => {
    reject.reset();
    approve.reset();
    setReason('');
    setReasonCode(null);
    setProblem(null);
    onDecided(outcome);
  };

  const reload = () => {
    reject.reset();
    approve.reset();
    setReason('');
    setProblem(null);
    onReload();
  };

  const error = mutation.error;
  const code = error instanceof ApiError ? error.code : undefined;
  const length = reason.trim().length;

  return (
    <Modal
      open={open}
      onOpenChange={(o) => (o ? undefined : close())}
      title={mode === 'approve' ? 'Approve this item?' : 'Reject this item?'}
      tone={mode === 'reject' ? 'danger' : undefined}
      testId="decision-dialog"
      wide={mode === 'approve'}
      initialFocus={mode === 'reject' ? reasonRef : confirmRef}
    >
      <form onSubmit={submit} className="decision-form" noValidate>
        <p className="muted small">
          <code>{item.type}</code> · <span className="mono">{item.mailbox_id}</span>
        </p>
        {mode === 'reject' ? (
          <div className="callout" data-testid="reject-consequence">
            <p>
              <strong>No downstream event will be emitted.</strong> The item is closed as rejected, with your reason in its history.
            </p>
          </div>
        ) : emits ? (
          <div className="callout callout-info" data-testid="approve-consequence">
            <p>
              Approving will emit <code className="event-name">{preview.event_name}</code>
              {preview.subscribers.length > 0 ? (
                <>
                  {' '}
                  to <strong>{preview.subscribers.join(', ')}</strong>.
                </>
              ) : (
                ', which no subscriber receives.'
              )}
            </p>
            <details className="emit-payload" open data-testid="approve-payload">
              <summary>Payload to emit</summary>
              <JsonTree value={item.payload} fileName={`${item.mailbox_id}.${preview.event_name}.json`} />
            </details>
            {entity && (
              <p className="small">
                Decided against entity <span className="mono">{entity.entity_id}</span> at revision <strong>{entity.revision}</strong>, as shown on the
                sheet.
              </p>
            )}
          </div>
        ) : (
          <div className="callout" data-testid="approve-consequence">
            <p>
              <strong>Approving emits no event</strong>
              {preview.reason ? (
                <>
                  {' '}
                  (<code>{preview.reason}</code>)
                </>
              ) : null}
              : it only records the decision.
            </p>
          </div>
        )}

        <div className="field field-wide">
          <label htmlFor={ids.reason}>{mode === 'reject' ? 'Reason (required)' : 'Note (optional)'}</label>
          {mode === 'reject' && review.reject_reasons.length > 0 && (
            <div className="quick-reasons" role="group" aria-label="Reason code">
              {review.reject_reasons.map((r) => (
                <button
                  key={r.code}
                  type="button"
                  className={`btn btn-small${reasonCode === r.code ? ' btn-primary' : ''}`}
                  aria-pressed={reasonCode === r.code}
                  data-testid="reason-code"
                  data-code={r.code}
                  onClick={() => {
                    const next = reasonCode === r.code ? null : r.code;
                    setReasonCode(next);
                    // The label fills an empty reason (or one that is another code's label).
                    if (next && (!reason.trim() || review.reject_reasons.some((x) => x.label === reason.trim()))) setReason(r.label);
                    setProblem(null);
                    reasonRef.current?.focus();
                  }}
                  disabled={busy}
                >
                  {r.label}
                </button>
              ))}
            </div>
          )}
          {mode === 'reject' && review.reject_reasons.length === 0 && (
            <div className="quick-reasons" role="group" aria-label="Quick reasons">
              {QUICK_REASONS.map((q) => (
                <button
                  key={q}
                  type="button"
                  className="btn btn-small"
                  onClick={() => {
                    setReason(q);
                    setProblem(null);
                    reasonRef.current?.focus();
                  }}
                  disabled={busy}
                >
                  {q}
                </button>
              ))}
            </div>
          )}
          <textarea
            id={ids.reason}
            ref={reasonRef}
            rows={4}
            value={reason}
            maxLength={REASON_MAX + 200}
            disabled={busy}
            onChange={(e) => {
              setReason(e.target.value);
              if (problem) setProblem(mode === 'reject' ? reasonProblem(e.target.value) : null);
            }}
            aria-invalid={problem ? true : undefined}
            aria-describedby={`${ids.count}${problem ? ` ${ids.problem}` : ''}`}
          />
          <div className="field-foot">
            <span id={ids.problem} className="field-error" role={problem ? 'alert' : undefined}>
              {problem}
            </span>
            <span id={ids.count} className={`muted small${length > REASON_MAX ? ' bad' : ''}`} aria-live="polite">
              {length} / {REASON_MAX} characters
            </span>
          </div>
        </div>

        {error && <DecisionError error={error} code={code} onReload={reload} />}

        <div className="modal-actions">
          <button type="button" className="btn" onClick={close} disabled={busy}>
            Cancel
          </button>
          {code === 'MAILBOX_NOT_PENDING' || code === 'STALE_DECISION_SHEET' ? null : (
            <button ref={confirmRef} type="submit" className={mode === 'reject' ? 'btn btn-danger' : 'btn btn-primary'} disabled={busy} data-testid="confirm-decision">
              {busy
                ? mode === 'reject'
                  ? 'Rejecting…'
                  : 'Approving…'
                : mode === 'reject'
                  ? 'Reject item'
                  : emits
                    ? `Approve and emit ${preview.event_name}`
                    : 'Approve'}
            </button>
          )}
        </div>
      </form>
    </Modal>
  );
}

function DecisionError({ error, code, onReload }: { error: unknown; code: string | undefined; onReload: () => void }) {
  if (code === 'STALE_DECISION_SHEET') {
    return (
      <div className="callout callout-bad" role="alert" data-testid="stale-sheet">
        <p>
          <strong>The entity changed since you opened this; review again.</strong>
        </p>
        <p className="small">Nothing was decided. Reload the decision sheet to see the entity as it is now.</p>
        <button type="button" className="btn" onClick={onReload}>
          Reload and review again
        </button>
      </div>
    );
  }
  if (code === 'MAILBOX_NOT_PENDING') {
    const status = error instanceof ApiError ? (error.details.status as string | undefined) : undefined;
    return (
      <div className="callout callout-bad" role="alert" data-testid="not-pending">
        <p>
          <strong>This item was already decided{status ? ` (it is ${status})` : ''}.</strong> It cannot be decided again.
        </p>
        <button type="button" className="btn" onClick={onReload}>
          Reload the item
        </button>
      </div>
    );
  }
  return <ErrorState compact error={error} />;
}
