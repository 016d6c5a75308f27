/**
 * Approve or reject one mailbox item. Reject needs a stated reason and says that nothing will be
 * emitted; when the item's type declares reason codes it needs one of them (number keys pick
 * them), or Other with text. Approve shows exactly what will be emitted and sends the entity
 * revision the reviewer saw; when some of the entity's gates fail it says so first and needs an
 * override note. Ctrl+Enter submits. One idempotency key per opening of the dialog: a double
 * click or a retry decides once.
 */
import { useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
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

/** The code a reject carries when none of the type's codes fits; its text says why. */
const OTHER = { code: 'other', label: 'Other (say why below)' };

/** The gates that fail on the sheet the reviewer sees, each in short ("607.54 > 500"). */
export function failingGatesOf(review: Review): { gate: string; summary?: string; detail?: string }[] {
  const gates = review.decision_sheet.entity_context.entity?.gates ?? {};
  return Object.entries(gates)
    .filter(([, g]) => !g.passed)
    .map(([gate, g]) => ({ gate, summary: g.summary, detail: g.detail }));
}

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
  /** What the problem is about: the reason code choice or the text. */
  const [problemOn, setProblemOn] = useState<'code' | 'text'>('text');
  const reasonRef = useRef<HTMLTextAreaElement>(null);
  const confirmRef = useRef<HTMLButtonElement>(null);
  const firstCodeRef = useRef<HTMLButtonElement>(null);
  const formRef = useRef<HTMLFormElement>(null);
  const ids = { reason: useId(), hint: useId(), count: useId(), problem: useId(), gates: useId() };
  const mutation = mode === 'approve' ? approve : reject;
  const busy = mutation.isPending;
  const item = review.item;
  const preview = review.decision_sheet.downstream_preview;
  const entity = review.decision_sheet.entity_context.entity?.entity;
  const emits = preview.available && preview.event_name;
  const gateCount = Object.keys(review.decision_sheet.entity_context.entity?.gates ?? {}).length;
  const failing = failingGatesOf(review);
  const overriding = mode === 'approve' && failing.length > 0;
  const codes = review.reject_reasons.length > 0 ? [...review.reject_reasons, OTHER] : [];
  const typed = mode === 'reject' && codes.length > 0;

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
      if (typed && !reasonCode) {
        setProblem(`Choose a reason code (keys 1–${codes.length}), or Other and say why.`);
        setProblemOn('code');
        firstCodeRef.current?.focus();
        return;
      }
      // With a declared code the text is optional: the code's label is sent as the reason then,
      // without being pasted into the field. Other needs text.
      const label = typed && reasonCode !== OTHER.code ? review.reject_reasons.find((r) => r.code === reasonCode)?.label : undefined;
      const p = label && reason.trim().length === 0 ? null : reasonProblem(reason);
      setProblem(p);
      setProblemOn('text');
      if (p) {
        reasonRef.current?.focus();
        return;
      }
      reject.mutate(
        { mailbox_id: item.mailbox_id, reason: reason.trim() || label!, ...(reasonCode ? { reason_code: reasonCode } : {}), idempotency_key: key },
        { onSuccess: (r) => finish({ ...r, mode: 'reject', mailbox_id: item.mailbox_id }) },
      );
    } else {
      const trimmed = reason.trim();
      if (trimmed.length > REASON_MAX) {
        setProblem(`The note is too long: at most ${REASON_MAX} characters.`);
        setProblemOn('text');
        return;
      }
      if (overriding && !trimmed) {
        setProblem('Write an override note: some gates fail, so approving needs a reason, kept with the decision.');
        setProblemOn('text');
        reasonRef.current?.focus();
        return;
      }
      approve.mutate(
        {
          mailbox_id: item.mailbox_id,
          idempotency_key: key,
          ...(trimmed ? (overriding ? { override_note: trimmed } : { reason: trimmed }) : {}),
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
    setReasonCode(null);
    setProblem(null);
    onReload();
  };

  const error = mutation.error;
  const code = error instanceof ApiError ? error.code : undefined;
  const length = reason.trim().length;

  const pickCode = (next: string | null) => {
    setReasonCode(next);
    setProblem(null);
  };

  /** Ctrl+Enter submits from anywhere in the form; number keys pick a reason code outside the text field. */
  const onKeyDown = (e: KeyboardEvent<HTMLFormElement>) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      formRef.current?.requestSubmit();
      return;
    }
    if (!typed || busy || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.target instanceof HTMLTextAreaElement || e.target instanceof HTMLInputElement) return;
    const n = Number(e.key);
    if (Number.isInteger(n) && n >= 1 && n <= codes.length) {
      e.preventDefault();
      pickCode(codes[n - 1]!.code);
    }
  };

  return (
    <Modal
      open={open}
      onOpenChange={(o) => (o ? undefined : close())}
      title={mode === 'approve' ? 'Approve this item?' : 'Reject this item?'}
      tone={mode === 'reject' ? 'danger' : undefined}
      testId="decision-dialog"
      wide={mode === 'approve'}
      initialFocus={typed ? firstCodeRef : mode === 'reject' || overriding ? reasonRef : confirmRef}
    >
      <form ref={formRef} onSubmit={submit} onKeyDown={onKeyDown} className="decision-form" noValidate>
        <p className="muted small">
          <code>{item.type}</code> · <span className="mono">{item.mailbox_id}</span>
        </p>
        {overriding && (
          <div className="callout callout-bad failing-gates" id={ids.gates} data-testid="failing-gates">
            <p>
              <strong>
                {failing.length} of {gateCount} {gateCount === 1 ? 'gate fails' : 'gates fail'}:{' '}
                {failing.map((g, i) => (
                  <span key={g.gate}>
                    {i > 0 && '; '}
                    <code>{g.gate}</code>
                    {g.summary ? `, ${g.summary}` : ''}
                  </span>
                ))}
              </strong>
            </p>
            <p className="small">Approving anyway needs an override note saying why. It is kept with the decision and shown in the item's history.</p>
          </div>
        )}
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
          {typed && (
            <>
              <span className="field-label" id={`${ids.reason}-codes`}>
                Reason code (required) <span className="muted small">· keys 1–{codes.length}</span>
              </span>
              <div
                className="quick-reasons reason-codes"
                role="group"
                aria-labelledby={`${ids.reason}-codes`}
                aria-describedby={problem && problemOn === 'code' ? ids.problem : undefined}
              >
                {codes.map((r, i) => (
                  <button
                    key={r.code}
                    ref={i === 0 ? firstCodeRef : undefined}
                    type="button"
                    className={`btn btn-small${reasonCode === r.code ? ' btn-primary' : ''}`}
                    aria-pressed={reasonCode === r.code}
                    aria-keyshortcuts={String(i + 1)}
                    data-testid="reason-code"
                    data-code={r.code}
                    onClick={() => pickCode(reasonCode === r.code ? null : r.code)}
                    disabled={busy}
                  >
                    <kbd aria-hidden="true">{i + 1}</kbd> {r.label}
                  </button>
                ))}
              </div>
            </>
          )}
          <label htmlFor={ids.reason}>
            {mode === 'reject'
              ? typed && reasonCode && reasonCode !== OTHER.code
                ? 'Reason (optional with a code)'
                : 'Reason (required)'
              : overriding
                ? 'Override note (required)'
                : 'Note (optional)'}
          </label>
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
              if (problem && problemOn === 'text') setProblem(mode === 'reject' ? reasonProblem(e.target.value) : null);
            }}
            aria-invalid={problem && problemOn === 'text' ? true : undefined}
            aria-describedby={`${overriding ? `${ids.gates} ` : ''}${ids.count}${problem && problemOn === 'text' ? ` ${ids.problem}` : ''}`}
          />
          <div className="field-foot">
            <span id={ids.problem} className="field-error" role={problem ? 'alert' : undefined}>
              {problem}
            </span>
            <span id={ids.count} className={`muted small${length > REASON_MAX ? ' bad' : ''}`} aria-live="polite">
              {length} / {REASON_MAX} characters
            </span>
          </div>
          <p className="muted small">
            <kbd>Ctrl</kbd>+<kbd>Enter</kbd> {mode === 'reject' ? 'rejects' : 'approves'}
          </p>
        </div>

        {error && <DecisionError error={error} code={code} onReload={reload} />}

        <div className="modal-actions">
          <button type="button" className="btn" onClick={close} disabled={busy}>
            Cancel
          </button>
          {code === 'MAILBOX_NOT_PENDING' || code === 'STALE_DECISION_SHEET' || code === 'GATE_OVERRIDE_REQUIRED' ? null : (
            <button ref={confirmRef} type="submit" className={mode === 'reject' ? 'btn btn-danger' : 'btn btn-primary'} disabled={busy} data-testid="confirm-decision">
              {busy
                ? mode === 'reject'
                  ? 'Rejecting…'
                  : 'Approving…'
                : mode === 'reject'
                  ? 'Reject item'
                  : emits
                    ? `${overriding ? 'Approve anyway' : 'Approve'} and emit ${preview.event_name}`
                    : overriding
                      ? 'Approve anyway'
                      : 'Approve'}
            </button>
          )}
        </div>
      </form>
    </Modal>
  );
}

function DecisionError({ error, code, onReload }: { error: unknown; code: string | undefined; onReload: () => void }) {
  if (code === 'GATE_OVERRIDE_REQUIRED') {
    const failing = error instanceof ApiError ? ((error.details.failing_gates as { gate: string; summary?: string }[] | undefined) ?? []) : [];
    return (
      <div className="callout callout-bad" role="alert" data-testid="gate-override-required">
        <p>
          <strong>Some gates fail now{failing.length ? `: ${failing.map((g) => (g.summary ? `${g.gate}, ${g.summary}` : g.gate)).join('; ')}` : ''}.</strong>
        </p>
        <p className="small">Nothing was decided. Reload the decision sheet to see the gates as they are, then approve with an override note or reject.</p>
        <button type="button" className="btn" onClick={onReload}>
          Reload and review again
        </button>
      </div>
    );
  }
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
