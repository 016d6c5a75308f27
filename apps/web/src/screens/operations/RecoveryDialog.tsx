/**
 * Redrive (dead letters) or replay (events), estimate first: opening the dialog runs the dry run,
 * which shows exactly what an apply would send, to which subscribers, and why. Applying sends the
 * estimate's plan hash (a changed set is refused, and the dialog offers a fresh estimate), the
 * chosen rate and the dialog's idempotency key; large plans need the count typed to confirm. After
 * apply the dialog shows live progress; closing it leaves the operation running.
 * A replay leaves subscribers the bundle marks side_effects (they pay, send, charge) unticked
 * unless the operator ticks them, with a warning, says when an event's entity has moved on since
 * the event (its revision then and now), and once applied links the events it published.
 */
import { useId, useMemo, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import { DEFAULT_OPERATION_RATE, MAX_OPERATION_RATE } from '@switchboard/contract/limits';
import { ApiError } from '../../api/client';
import { useOperation, useRecoveryApply, useRecoveryEstimate, type OperationPlan, type RecoveryKind, type RecoverySelection } from '../../api/operations';
import { paths } from '../../paths';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { Modal, useDialogKey } from '../../ui/Modal';
import { RelativeTime } from '../../ui/RelativeTime';
import { OperationProgress } from './OperationProgress';
import './RecoveryDialog.css';
import { CountBreakdown } from '../../ui/CountBreakdown';

/** Plans sending more than this many items need the count typed to confirm. */
export const TYPED_CONFIRMATION_ABOVE = 25;

export function RecoveryDialog({
  kind,
  selection,
  scope,
  open,
  onOpenChange,
}: {
  kind: RecoveryKind;
  selection: RecoverySelection;
  /** What the selection is, in words ("3 selected dead letters", "all matching these filters"). */
  scope: ReactNode;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const { key, renew } = useDialogKey(open);
  // The operator may narrow the plan to some of its subscribers; the choices come from the
  // unrestricted estimate, and every change estimates again.
  const [only, setOnly] = useState<string[] | null>(null);
  const [choices, setChoices] = useState<string[] | null>(null);
  const effective = useMemo(() => (only ? { ...selection, subscriber_ids: only } : selection), [selection, only]);
  const estimate = useRecoveryEstimate(kind, effective, open && (only === null || only.length > 0));
  const [sideEffects, setSideEffects] = useState<string[]>([]);
  if (choices === null && only === null && estimate.data) {
    const all = estimate.data.plan.by_subscriber.map((s) => s.subscriber_id);
    const risky = (estimate.data.plan.side_effect_subscribers ?? []).filter((id) => all.includes(id));
    setChoices(all);
    setSideEffects(risky);
    // Subscribers with side effects start unticked: a replay should not pay or send twice by default.
    if (kind === 'replay' && risky.length > 0) setOnly(all.filter((id) => !risky.includes(id)));
  }
  const apply = useRecoveryApply(kind);
  const [rate, setRate] = useState(String(DEFAULT_OPERATION_RATE));
  const [stopAfter, setStopAfter] = useState('');
  const [typed, setTyped] = useState('');
  const [operationId, setOperationId] = useState<string | null>(null);
  const ids = { rate: useId(), typed: useId(), rateHint: useId(), stopAfter: useId() };
  const verb = kind === 'redrive' ? 'Redrive' : 'Replay';

  const close = () => {
    if (apply.isPending) return;
    apply.reset();
    setTyped('');
    setOperationId(null);
    setOnly(null);
    setChoices(null);
    setSideEffects([]);
    onOpenChange(false);
  };

  const noneChosen = only !== null && only.length === 0;
  const plan = noneChosen ? undefined : estimate.data?.plan;
  const rateValue = Number(rate);
  const rateValid = Number.isFinite(rateValue) && rateValue >= 0.1 && rateValue <= MAX_OPERATION_RATE;
  // Optional: empty never pauses; otherwise a whole number of re-failures, at least 1.
  const stopAfterValue = stopAfter.trim() === '' ? undefined : Number(stopAfter);
  const stopAfterValid = stopAfterValue === undefined || (Number.isInteger(stopAfterValue) && stopAfterValue >= 1);
  const needsTyped = (plan?.to_send ?? 0) > TYPED_CONFIRMATION_ABOVE;
  const confirmed = !needsTyped || typed.trim() === String(plan?.to_send);
  const stale = apply.error instanceof ApiError && apply.error.code === 'PLAN_STALE';

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!plan || apply.isPending || !rateValid || !stopAfterValid || !confirmed || plan.to_send === 0) return;
    apply.mutate(
      { selection: effective, expected_plan_hash: plan.plan_hash, rate_per_second: rateValue, stop_after_failures: stopAfterValue, idempotency_key: key },
      { onSuccess: (r) => setOperationId(r.operation?.operation_id ?? null) },
    );
  };

  const estimateAgain = () => {
    apply.reset();
    renew();
    setTyped('');
    void estimate.refetch();
  };

  return (
    <Modal open={open} onOpenChange={(o) => (o ? undefined : close())} title={`${verb} ${kind === 'redrive' ? 'dead letters' : 'events'}`} wide testId="recovery-dialog">
      {operationId ? (
        <div className="recovery-applied">
          <OperationProgress operationId={operationId} />
          {kind === 'replay' && <ReplayedAs operationId={operationId} onNavigate={close} />}
          <p className="muted small">Closing this dialog does not stop the operation; it stays listed on the Runtime page.</p>
          <div className="modal-actions">
            <Link className="btn" to={`/runtime#operations`} onClick={close}>
              Open operations
            </Link>
            <button type="button" className="btn btn-primary" onClick={close} data-testid="close-recovery">
              Close
            </button>
          </div>
        </div>
      ) : (
        <form onSubmit={submit} className="decision-form">
          <p>
            Scope: <strong>{scope}</strong>
          </p>
          {choices && (choices.length > 1 || sideEffects.length > 0) && (
            <fieldset className="recovery-subscribers" disabled={apply.isPending}>
              <legend>Send to subscribers</legend>
              {choices.map((id) => {
                const checked = only === null || only.includes(id);
                const risky = sideEffects.includes(id);
                return (
                  <label key={id} className={`field-inline${risky ? ' side-effect' : ''}`} data-side-effects={risky || undefined}>
                    <input
                      type="checkbox"
                      checked={checked}
                      onChange={(e) => {
                        const current = only ?? choices;
                        const next = e.target.checked ? [...current, id] : current.filter((c) => c !== id);
                        setOnly(next.length === choices.length ? null : next);
                        setTyped('');
                        apply.reset();
                        renew();
                      }}
                      data-testid="recovery-subscriber"
                      data-subscriber={id}
                    />
                    <span className="mono">{id}</span>
                    {risky && <span className="badge badge-warn">side effects</span>}
                  </label>
                );
              })}
              {sideEffects.length > 0 && (
                <p className={`callout${sideEffects.some((id) => only === null || only.includes(id)) ? ' callout-bad' : ''} small`} data-testid="side-effect-warning">
                  <strong>{sideEffects.join(', ')}</strong> {sideEffects.length === 1 ? 'acts' : 'act'} outside the runtime (the bundle marks {sideEffects.length === 1 ? 'it' : 'them'}{' '}
                  <code>side_effects</code>): a replay would do it again, for example pay a refund twice.{' '}
                  {sideEffects.some((id) => only === null || only.includes(id)) ? 'You ticked it: be sure.' : 'Left unticked; tick to include.'}
                </p>
              )}
            </fieldset>
          )}
          {noneChosen ? (
            <p className="callout">Choose at least one subscriber.</p>
          ) : estimate.isPending ? (
            <LoadingState label="Estimating" />
          ) : estimate.isError ? (
            <ErrorState compact error={estimate.error} onRetry={() => void estimate.refetch()} />
          ) : (
            <PlanSummary plan={plan!} kind={kind} />
          )}
          {plan && plan.to_send > 0 && (
            <>
              <div className="field recovery-rate">
                <label htmlFor={ids.rate}>Rate ({kind === 'redrive' ? 'deliveries' : 'events'} per second)</label>
                <input
                  id={ids.rate}
                  type="number"
                  min={0.1}
                  max={MAX_OPERATION_RATE}
                  step="any"
                  value={rate}
                  onChange={(e) => setRate(e.target.value)}
                  aria-describedby={ids.rateHint}
                  aria-invalid={!rateValid}
                  data-testid="recovery-rate"
                />
                <p id={ids.rateHint} className={`small ${rateValid ? 'muted' : 'bad'}`}>
                  {rateValid
                    ? `${formatDuration(plan.to_send / rateValue)} at this rate; a low rate spares a recovering dependency.`
                    : `Between 0.1 and ${MAX_OPERATION_RATE}.`}
                </p>
              </div>
              <div className="field recovery-rate">
                <label htmlFor={ids.stopAfter}>Pause after failures (optional)</label>
                <input
                  id={ids.stopAfter}
                  type="number"
                  min={1}
                  step={1}
                  value={stopAfter}
                  placeholder="never"
                  onChange={(e) => setStopAfter(e.target.value)}
                  aria-invalid={!stopAfterValid}
                  data-testid="recovery-stop-after"
                />
              </div>
              {needsTyped && (
                <div className="field field-wide">
                  <label htmlFor={ids.typed}>
                    Type <code>{plan.to_send}</code> to confirm sending {plan.to_send.toLocaleString()} {kind === 'redrive' ? 'dead letters' : 'events'}
                  </label>
                  <input id={ids.typed} type="text" inputMode="numeric" autoComplete="off" value={typed} onChange={(e) => setTyped(e.target.value)} data-testid="recovery-confirm" />
                </div>
              )}
            </>
          )}
          {apply.error && (
            <div>
              <ErrorState compact error={apply.error} />
              {stale && (
                <button type="button" className="btn btn-small" onClick={estimateAgain} data-testid="estimate-again">
                  Estimate again
                </button>
              )}
            </div>
          )}
          <div className="modal-actions">
            <button type="button" className="btn" onClick={close} disabled={apply.isPending}>
              Cancel
            </button>
            <button
              type="submit"
              className="btn btn-primary"
              disabled={!plan || plan.to_send === 0 || apply.isPending || !rateValid || !stopAfterValid || !confirmed || stale}
              data-testid="apply-recovery"
            >
              {apply.isPending ? 'Starting…' : plan ? `${verb} ${plan.to_send.toLocaleString()}` : verb}
            </button>
          </div>
        </form>
      )}
    </Modal>
  );
}

function formatDuration(seconds: number): string {
  if (seconds < 1) return 'Under a second';
  if (seconds < 90) return `About ${Math.ceil(seconds)} s`;
  const minutes = Math.ceil(seconds / 60);
  return minutes < 90 ? `About ${minutes} min` : `About ${Math.round(minutes / 6) / 10} h`;
}

/** The events a finished replay published, each with its run. */
function ReplayedAs({ operationId, onNavigate }: { operationId: string; onNavigate: () => void }) {
  const op = useOperation(operationId);
  const published = (op.data?.items ?? []).filter((i) => i.result_id);
  if (published.length === 0) return null;
  return (
    <div className="replayed-as" data-testid="replayed-as">
      <h4>Published</h4>
      <ul>
        {published.slice(0, 10).map((i) => (
          <li key={i.item_index}>
            <Link to={paths.event(i.result_id!)} className="mono" onClick={onNavigate} data-testid="replayed-event-link">
              {i.result_id}
            </Link>{' '}
            <span className="muted small">replays</span> <span className="mono small">{i.target_id}</span>
          </li>
        ))}
      </ul>
      {published.length > 10 && <p className="muted small">and {published.length - 10} more, listed with the operation.</p>}
    </div>
  );
}

/** Sampled events whose entity moved on since them: the revision then and now. */
function EntityMovedOn({ plan }: { plan: OperationPlan }) {
  const moved = (plan.entity_revisions ?? []).filter((r) => r.revision_now === null || r.revision_now > r.revision_then);
  if (moved.length === 0) return null;
  return (
    <div className="callout small" data-testid="entity-moved-on">
      <p>
        <strong>
          {moved.length === 1 ? 'The entity has' : `${moved.length} entities have`} moved on since {moved.length === 1 ? 'the event' : 'their events'}:
        </strong>{' '}
        a replay acts on the entity as it is now.
      </p>
      <ul>
        {moved.map((r) => (
          <li key={r.event_id}>
            <Link to={paths.entity(r.entity_id)} className="mono">
              {r.entity_id}
            </Link>
            : revision {r.revision_then} then, {r.revision_now === null ? 'gone now (removed)' : `${r.revision_now} now`}
          </li>
        ))}
      </ul>
    </div>
  );
}

function PlanSummary({ plan, kind }: { plan: OperationPlan; kind: RecoveryKind }) {
  const unit = kind === 'redrive' ? 'dead letter' : 'event';
  return (
    <div className="plan-summary" data-testid="recovery-plan">
      <p className="plan-headline" aria-live="polite">
        <strong data-testid="plan-to-send">{plan.to_send.toLocaleString()}</strong> {unit}
        {plan.to_send === 1 ? '' : 's'} to send ({plan.deliveries.toLocaleString()} deliver{plan.deliveries === 1 ? 'y' : 'ies'}) of {plan.matched.toLocaleString()} matching
        {plan.already_redriven > 0 ? `; ${plan.already_redriven.toLocaleString()} already redriven are not sent again` : ''}.
      </p>
      {plan.to_send === 0 ? (
        <p className="callout">Nothing to send: {plan.matched === 0 ? `no ${unit} matches.` : 'everything matching was already redriven.'}</p>
      ) : (
        <>
          {kind === 'replay' && <EntityMovedOn plan={plan} />}
          {plan.oldest && plan.newest && (
            <p className="muted small">
              From <RelativeTime iso={plan.oldest} /> to <RelativeTime iso={plan.newest} />
            </p>
          )}
          <div className="plan-groups">
            <Breakdown title="By subscriber" rows={plan.by_subscriber.map((r) => [r.subscriber_id, r.count])} />
            {plan.by_reason_code.length > 0 && <Breakdown title="By reason" rows={plan.by_reason_code.map((r) => [r.reason_code, r.count])} />}
            <Breakdown title="By event" rows={plan.by_event_name.map((r) => [r.event_name, r.count])} />
          </div>
          <details className="plan-sample">
            <summary>Sample ({plan.sample.length})</summary>
            <ul>
              {plan.sample.map((s) => (
                <li key={s.target_id}>
                  <Link to={kind === 'redrive' ? paths.deadLetter(s.event_id, s.target_id) : paths.event(s.event_id)} className="mono">
                    {s.target_id}
                  </Link>{' '}
                  {s.event_name}
                  {s.subscriber_id ? ` → ${s.subscriber_id}` : ''}
                  {s.reason_code ? ` · ${s.reason_code}` : ''}
                  {s.error_message ? <span className="muted"> · {s.error_message}</span> : null}
                </li>
              ))}
            </ul>
          </details>
        </>
      )}
    </div>
  );
}

function Breakdown({ title, rows }: { title: string; rows: [string, number][] }) {
  return <CountBreakdown title={title} rows={rows} className="data plan-breakdown" />;
}
