import type { RefObject } from 'react';

/**
 * The buttons of a destructive confirmation dialog: "Keep it" (which takes the dialog's initial
 * focus, so Enter does not destroy) and the danger button, both disabled while the action runs.
 */
export function ConfirmActions({
  onKeep,
  keepRef,
  onConfirm,
  pending,
  label,
  pendingLabel,
  testId,
}: {
  onKeep: () => void;
  keepRef: RefObject<HTMLButtonElement | null>;
  onConfirm: () => void;
  pending: boolean;
  label: string;
  pendingLabel: string;
  testId: string;
}) {
  return (
    <div className="modal-actions">
      <button type="button" className="btn" onClick={onKeep} ref={keepRef} disabled={pending}>
        Keep it
      </button>
      <button type="button" className="btn btn-danger" disabled={pending} onClick={onConfirm} data-testid={testId}>
        {pending ? pendingLabel : label}
      </button>
    </div>
  );
}
