/**
 * The reset dialog, in three steps: (1) a dry run shows what each owner would do; (2) typing the
 * runtime's name or a fingerprint prefix arms the next step; (3) a stated reason applies the reset
 * with the dialog's idempotency key and the dry run's plan hash. A PLAN_STALE refusal re-previews,
 * shows what changed and asks again in place, with the new plan; the outcome never looks like
 * success unless it was one. Under traffic, "Pause ingress, then preview" pauses first: while
 * ingress is paused the plan only drifts by records the reset also removes, so it stays valid.
 */
import { useEffect, useId, useReducer, useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client';
import { useNukeApply, useNukeDryRun, usePauseIngress, type RuntimeStatus } from '../../api/runtime';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { Modal, newIdempotencyKey, useDialogKey } from '../../ui/Modal';
import { NukeOutcome } from './NukeOutcome';
import { NukePreview } from './NukePreview';
import { FINGERPRINT_PREFIX_MIN, armsReset, planHash, previewChanges, type PreviewChange } from './nuke-format';
import { NUKE_DIALOG_OPENED, nukeFlow, type StaleView } from './nuke-flow';
import './NukeDialog.css';

type Step = 'preview' | 'arm' | 'apply' | 'done';
const STEPS: { step: Exclude<Step, 'done'>; label: string }[] = [
  { step: 'preview', label: 'Preview' },
  { step: 'arm', label: 'Confirm' },
  { step: 'apply', label: 'Apply' },
];

export function NukeDialog({ open, onOpenChange, status }: { open: boolean; onOpenChange: (open: boolean) => void; status: RuntimeStatus }) {
  const { key, renew } = useDialogKey(open);
  const dryRun = useNukeDryRun();
  const apply = useNukeApply();
  const pause = usePauseIngress();
  const [flow, dispatch] = useReducer(nukeFlow, NUKE_DIALOG_OPENED);
  // What changed when a stale plan was replaced in place by the fresh one (shown until applied).
  const [replaced, setReplaced] = useState<PreviewChange[] | null>(null);
  const ids = { typed: useId(), typedHint: useId(), reason: useId(), reasonError: useId() };
  const runtime = { name: status.name, fingerprint: status.bundle.fingerprint };
  const step = flow.step;
  const preview = flow.step === 'done' ? undefined : flow.preview;
  const typed = flow.step === 'done' ? '' : flow.typed;
  const reason = flow.step === 'done' ? '' : flow.reason;
  const reasonError = flow.step === 'apply' ? flow.reasonError : null;
  const stale = flow.step === 'apply' ? flow.stale : null;
  const armed = armsReset(typed, runtime);
  const hash = planHash(preview);
  const ingress = (preview?.quiescence as { ingress?: string } | undefined)?.ingress;
  const pausedBasis = (preview?.plan as { hash_basis?: string } | undefined)?.hash_basis === 'paused_ingress';

  const runDryRun = () => dryRun.mutate(undefined, { onSuccess: (result) => dispatch({ type: 'previewed', result }) });

  /** Pauses ingress (publishes queue durably), then previews: the plan then survives steady traffic. */
  const pauseThenPreview = () => {
    pause.mutate({ idempotency_key: newIdempotencyKey(), reason: 'Paused to reset the runtime' }, { onSuccess: runDryRun });
  };

  // Each opening starts from a fresh dry run and a clean slate.
  useEffect(() => {
    if (!open) return;
    dispatch({ type: 'opened' });
    apply.reset();
    pause.reset();
    setReplaced(null);
    runDryRun();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- a fresh preview once per opening; the mutation objects change identity every render
  }, [open]);

  const submitApply = (e: FormEvent) => {
    e.preventDefault();
    if (apply.isPending || !hash || !armed) return;
    if (!reason.trim()) {
      dispatch({ type: 'reasonMissing' });
      return;
    }
    apply.mutate(
      { idempotency_key: key, expected_plan_hash: hash, reason: reason.trim() },
      {
        onSuccess: (outcome) => dispatch({ type: 'applied', outcome }),
        onError: (err) => {
          if (err instanceof ApiError && err.code === 'PLAN_STALE' && preview) {
            // Show what moved: a fresh, side-effect-free preview compared with the reviewed one.
            dryRun.mutate(undefined, { onSuccess: (fresh) => dispatch({ type: 'staleSeen', stale: { fresh, changes: previewChanges(preview, fresh) } }) });
          }
        },
      },
    );
  };

  const takeFreshPreview = () => {
    if (!stale) return;
    setReplaced(stale.changes);
    dispatch({ type: 'freshTaken' });
    apply.reset();
    // The old key's stored answer is the refusal; the new plan is a new decision.
    renew();
  };

  const applyError = apply.error;
  const planStale = applyError instanceof ApiError && applyError.code === 'PLAN_STALE';

  return (
    <Modal
      open={open}
      onOpenChange={(o) => {
        if (!o && apply.isPending) return;
        onOpenChange(o);
      }}
      title="Reset the runtime"
      description={
        <>
          Removes every run-scoped record of <strong>{status.name}</strong> and stops its managed containers. Tokens, the bundle and the audit trail
          are kept. This cannot be undone.
        </>
      }
      tone="danger"
      wide
      testId="nuke-dialog"
    >
      {step !== 'done' && (
        <ol className="stepper" aria-label="Steps">
          {STEPS.map((s, i) => (
            <li key={s.step} aria-current={s.step === step ? 'step' : undefined} className={s.step === step ? 'is-current' : undefined}>
              <span className="stepper-n">{i + 1}</span> {s.label}
            </li>
          ))}
        </ol>
      )}

      {step === 'preview' && (
        <div className="nuke-step">
          <h3>Step 1 · What the reset would do (dry run, nothing changed)</h3>
          {dryRun.isPending && !preview ? (
            <LoadingState label="Running the dry run" />
          ) : dryRun.isError && !preview ? (
            <ErrorState compact error={dryRun.error} onRetry={runDryRun} />
          ) : preview ? (
            <>
              {pausedBasis ? (
                <p className="callout callout-info small" data-testid="nuke-paused-basis">
                  <strong>Ingress is paused.</strong> New publishes wait in the queue, so this plan only drifts by records the reset also removes
                  (handlers finishing, publishes queued); it stays valid until you apply. A complete reset opens ingress again.
                </p>
              ) : ingress === 'open' ? (
                <p className="callout small" data-testid="nuke-open-ingress">
                  <strong>Ingress is open.</strong> Under traffic every new record makes this plan stale before you apply it. Pause ingress first
                  (publishes are queued, not lost) and the plan holds.
                </p>
              ) : null}
              <NukePreview result={preview} />
            </>
          ) : null}
          {pause.isError && <ErrorState compact error={pause.error} />}
          <div className="modal-actions">
            <button type="button" className="btn" onClick={() => onOpenChange(false)}>
              Cancel
            </button>
            {ingress === 'open' && (
              <button type="button" className="btn" onClick={pauseThenPreview} disabled={pause.isPending || dryRun.isPending} data-testid="nuke-pause-preview">
                {pause.isPending ? 'Pausing…' : 'Pause ingress, then preview'}
              </button>
            )}
            <button type="button" className="btn" onClick={runDryRun} disabled={dryRun.isPending || pause.isPending}>
              {dryRun.isPending ? 'Previewing…' : 'Preview again'}
            </button>
            <button type="button" className="btn btn-danger-outline" onClick={() => dispatch({ type: 'continued' })} disabled={!preview || dryRun.isPending}>
              Continue
            </button>
          </div>
        </div>
      )}

      {step === 'arm' && (
        <form
          className="nuke-step"
          onSubmit={(e) => {
            e.preventDefault();
            if (armed) dispatch({ type: 'confirmed' });
          }}
        >
          <h3>Step 2 · Confirm which runtime</h3>
          <div className="field field-wide">
            <label htmlFor={ids.typed}>
              Type <code>{status.name}</code> or the first {FINGERPRINT_PREFIX_MIN}+ characters of the fingerprint
            </label>
            <p id={ids.typedHint} className="muted small">
              Fingerprint <code className="wrap">{status.bundle.fingerprint}</code>
            </p>
            <input
              id={ids.typed}
              type="text"
              autoComplete="off"
              spellCheck={false}
              value={typed}
              onChange={(e) => dispatch({ type: 'typed', text: e.target.value })}
              aria-describedby={ids.typedHint}
              data-testid="nuke-confirm-input"
            />
            <p className={`small ${armed ? 'bad' : 'muted'}`} aria-live="polite">
              {armed ? 'Armed: the next step resets this runtime.' : 'Not armed.'}
            </p>
          </div>
          <div className="modal-actions">
            <button type="button" className="btn" onClick={() => dispatch({ type: 'back' })}>
              Back
            </button>
            <button type="submit" className="btn btn-danger" disabled={!armed} data-testid="nuke-arm">
              Continue to apply
            </button>
          </div>
        </form>
      )}

      {step === 'apply' && (
        <form className="nuke-step" onSubmit={submitApply} noValidate>
          <h3>Step 3 · Reason and apply</h3>
          <div className="field field-wide">
            <label htmlFor={ids.reason}>Reason (recorded in the reset audit record)</label>
            <textarea
              id={ids.reason}
              rows={3}
              value={reason}
              maxLength={2000}
              // Locked once sent: a retry must repeat the same request under the dialog's key.
              disabled={apply.isPending || Boolean(applyError && !planStale)}
              onChange={(e) => dispatch({ type: 'reasonChanged', text: e.target.value })}
              aria-invalid={reasonError ? true : undefined}
              aria-describedby={reasonError ? ids.reasonError : undefined}
              data-testid="nuke-reason"
            />
            {reasonError && (
              <p id={ids.reasonError} className="field-error" role="alert">
                {reasonError}
              </p>
            )}
          </div>
          {replaced && !planStale && <PlanReplacedNotice changes={replaced} />}
          {planStale ? (
            <PlanStaleNotice stale={stale} loading={dryRun.isPending} error={dryRun.isError ? dryRun.error : null} onFresh={takeFreshPreview} />
          ) : applyError ? (
            <ErrorState compact error={applyError} />
          ) : null}
          <div className="modal-actions">
            <button type="button" className="btn" onClick={() => dispatch({ type: 'back' })} disabled={apply.isPending}>
              Back
            </button>
            {!planStale && (
              <button type="submit" className="btn btn-danger" disabled={apply.isPending || !armed || !hash} data-testid="nuke-apply">
                {apply.isPending ? 'Resetting…' : applyError ? 'Try again' : `Reset ${status.name} now`}
              </button>
            )}
          </div>
        </form>
      )}

      {flow.step === 'done' && (
        <div className="nuke-step">
          <NukeOutcome result={flow.outcome} />
          <div className="modal-actions">
            <button type="button" className="btn" onClick={() => onOpenChange(false)}>
              Close
            </button>
          </div>
        </div>
      )}
    </Modal>
  );
}

/** After a stale plan was replaced in place: what changed, and that the apply now uses the new plan. */
function PlanReplacedNotice({ changes }: { changes: PreviewChange[] }) {
  return (
    <div className="callout small" data-testid="plan-replaced">
      <p>
        <strong>The plan was updated to the runtime as it is now</strong>
        {changes.length > 0 ? `: ${changes.map((c) => `${c.what} ${c.before.toLocaleString()} → ${c.after.toLocaleString()}`).join('; ')}` : ''}. Reset with this plan?
      </p>
    </div>
  );
}

function PlanStaleNotice({
  stale,
  loading,
  error,
  onFresh,
}: {
  stale: StaleView | null;
  loading: boolean;
  error: unknown;
  onFresh: () => void;
}) {
  return (
    <div className="callout callout-bad" role="alert" data-testid="plan-stale">
      <p>
        <strong>Nothing was reset: the runtime changed since the preview.</strong> Review the fresh preview before resetting.
      </p>
      {loading && <LoadingState label="Running a fresh dry run" />}
      {error ? <ErrorState compact error={error} /> : null}
      {stale && (
        <>
          {stale.changes.length > 0 ? (
            <table className="values" aria-label="What changed">
              <thead>
                <tr>
                  <th scope="col">What</th>
                  <th scope="col" className="num">
                    Previewed
                  </th>
                  <th scope="col" className="num">
                    Now
                  </th>
                </tr>
              </thead>
              <tbody>
                {stale.changes.map((c) => (
                  <tr key={c.what}>
                    <th scope="row">{c.what}</th>
                    <td className="num">{c.before.toLocaleString()}</td>
                    <td className="num">{c.after.toLocaleString()}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p className="small">The counts are the same, but the records behind them changed (for example, different containers or items).</p>
          )}
          <p className="small">The dialog previewed again. Apply the new plan, or go back to review it whole.</p>
          <button type="button" className="btn btn-danger-outline" onClick={onFresh} data-testid="nuke-use-fresh">
            Use the new plan
          </button>
        </>
      )}
    </div>
  );
}
