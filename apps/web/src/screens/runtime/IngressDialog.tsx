/** Confirms pausing or resuming runtime ingress; one idempotency key per opening of the dialog. */
import { useId, useState, type FormEvent } from 'react';
import { usePauseIngress, useResumeIngress, type RuntimeStatus } from '../../api/runtime';
import { ErrorState } from '../../ui/ErrorState';
import { Modal, useDialogKey } from '../../ui/Modal';

export function IngressDialog({
  mode,
  status,
  onClose,
  onDone,
}: {
  mode: 'pause' | 'resume' | null;
  status: RuntimeStatus;
  onClose: () => void;
  onDone: (message: string) => void;
}) {
  const open = mode !== null;
  const { key } = useDialogKey(open);
  const pause = usePauseIngress();
  const resume = useResumeIngress();
  const [reason, setReason] = useState('');
  const reasonId = useId();
  const mutation = mode === 'pause' ? pause : resume;

  const close = () => {
    if (mutation.isPending) return;
    pause.reset();
    resume.reset();
    setReason('');
    onClose();
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (mutation.isPending) return;
    if (mode === 'pause') {
      pause.mutate(
        { idempotency_key: key, ...(reason.trim() ? { reason: reason.trim() } : {}) },
        {
          onSuccess: () => {
            setReason('');
            pause.reset();
            onDone('Ingress paused: new publishes are queued until you resume.');
          },
        },
      );
    } else {
      resume.mutate(
        { idempotency_key: key },
        {
          onSuccess: (r) => {
            resume.reset();
            onDone(`Ingress resumed${r.released !== undefined ? `: ${r.released} queued publish${r.released === 1 ? '' : 'es'} released for dispatch` : ''}.`);
          },
        },
      );
    }
  };

  return (
    <Modal open={open} onOpenChange={(o) => (o ? undefined : close())} title={mode === 'pause' ? 'Pause ingress?' : 'Resume ingress?'} testId="ingress-dialog">
      <form onSubmit={submit} className="decision-form">
        {mode === 'pause' ? (
          <div className="callout">
            <p>
              New publishes to <strong>{status.name}</strong> are accepted and queued durably, but not dispatched until you resume. Runs already in
              progress continue.
            </p>
          </div>
        ) : (
          <div className="callout callout-info">
            <p>
              {status.queue_depth.toLocaleString()} queued publish{status.queue_depth === 1 ? ' becomes' : 'es become'} eligible for dispatch, each exactly
              once.
            </p>
          </div>
        )}
        {mode === 'pause' && (
          <div className="field field-wide">
            <label htmlFor={reasonId}>Reason (optional)</label>
            <textarea id={reasonId} rows={2} maxLength={2000} value={reason} onChange={(e) => setReason(e.target.value)} disabled={mutation.isPending} />
          </div>
        )}
        {mutation.error && <ErrorState compact error={mutation.error} />}
        <div className="modal-actions">
          <button type="button" className="btn" onClick={close} disabled={mutation.isPending}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={mutation.isPending} data-testid="confirm-ingress">
            {mutation.isPending ? (mode === 'pause' ? 'Pausing…' : 'Resuming…') : mode === 'pause' ? 'Pause ingress' : 'Resume ingress'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
