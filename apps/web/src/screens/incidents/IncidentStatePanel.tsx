/**
 * An incident's lifecycle in its detail panel: its state, the actions that change it (each with
 * an optional note), ignoring until a time or a number of new occurrences, and its activity.
 * Keys `a` (acknowledge) and `e` (resolve) act on it; after any change focus rests on the state
 * line here, since the button pressed may be gone.
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { Incident, IncidentActivity } from '@switchboard/contract';
import { useIncidentActivity, useUpdateIncident } from '../../api/incidents';
import { ActorLabel } from '../../ui/ActorLabel';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { newIdempotencyKey } from '../../ui/Modal';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { stateLabel, stateTone } from './incident-state';
import { useCan } from '../../api/access';
import { GuardedButton } from '../../ui/GuardedButton';
import './IncidentStatePanel.css';

type State = NonNullable<Incident['state']>;

const IGNORE_FOR = [
  { hours: 1, label: '1 hour' },
  { hours: 24, label: '24 hours' },
  { hours: 168, label: '7 days' },
];

/** The state as the last activity left it, for an incident not in the loaded list. */
function stateFromActivity(activity: IncidentActivity[] | undefined): Pick<Incident, 'state' | 'regressed'> {
  const last = activity?.at(-1);
  if (!last) return { state: 'open', regressed: false };
  return last.action === 'regressed' ? { state: 'open', regressed: true } : { state: last.action, regressed: false };
}

export function IncidentStatePanel({ incidentId, incident }: { incidentId: string; incident: Incident | undefined }) {
  const activity = useIncidentActivity(incidentId);
  const update = useUpdateIncident();
  const [note, setNote] = useState('');
  const [ignoring, setIgnoring] = useState(false);
  const [ignoreBy, setIgnoreBy] = useState<'time' | 'count' | 'forever'>('time');
  const [hours, setHours] = useState('24');
  const [occurrences, setOccurrences] = useState('10');
  const ids = { note: useId(), by: useId(), hours: useId(), count: useId() };
  const stateLine = useRef<HTMLParagraphElement>(null);
  const current = incident?.state ? incident : stateFromActivity(activity.data?.activity);
  const state = current.state ?? 'open';

  const send = (next: State, extra: { ignore_until?: string; ignore_occurrences?: number } = {}) =>
    update.mutate(
      { incident_id: incidentId, state: next, ...(note.trim() ? { note: note.trim() } : {}), ...extra, idempotency_key: newIdempotencyKey() },
      {
        onSuccess: () => {
          setNote('');
          setIgnoring(false);
          stateLine.current?.focus({ preventScroll: true });
        },
      },
    );

  const sendRef = useRef(send);
  sendRef.current = send;
  const allowed = useCan('runtime.incident_update').allowed;
  const canAcknowledge = allowed && state === 'open';
  const canResolve = allowed && state !== 'resolved';
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.metaKey || e.ctrlKey || e.altKey || update.isPending || document.querySelector('[role="dialog"]')) return;
      const el = e.target as HTMLElement | null;
      if (el && (el.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(el.tagName))) return;
      if (e.key === 'a' && canAcknowledge) sendRef.current('acknowledged');
      else if (e.key === 'e' && canResolve) sendRef.current('resolved');
      else return;
      e.preventDefault();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [canAcknowledge, canResolve, update.isPending]);

  const submitIgnore = (e: FormEvent) => {
    e.preventDefault();
    if (ignoreBy === 'time') send('ignored', { ignore_until: new Date(Date.now() + Number(hours) * 3600_000).toISOString() });
    else if (ignoreBy === 'count') send('ignored', { ignore_occurrences: Math.max(1, Math.floor(Number(occurrences))) });
    else send('ignored');
  };

  return (
    <section className="incident-state" aria-labelledby={`${ids.note}-title`} data-testid="incident-state-panel">
      <h3 id={`${ids.note}-title`}>State</h3>
      <p className="incident-state-now" ref={stateLine} tabIndex={-1} aria-live="polite" data-testid="incident-state-now">
        <StatusBadge value={stateLabel(current)} tone={stateTone(current)} />
        {incident?.state_changed_at && (
          <span className="muted small">
            {' '}
            {incident.regressed ? 'resolved ' : 'since '}
            <RelativeTime iso={incident.state_changed_at} />
            {incident.state_changed_by && (
              <>
                {' by '}
                <ActorLabel id={incident.state_changed_by} />
              </>
            )}
            {incident.regressed ? ', then it occurred again' : ''}
          </span>
        )}
        {incident?.ignore_until && (
          <span className="small">
            {' '}
            until <RelativeTime iso={incident.ignore_until} />
          </span>
        )}
        {incident?.ignore_remaining !== undefined && <span className="small"> until {incident.ignore_remaining} more occurrence{incident.ignore_remaining === 1 ? '' : 's'}</span>}
      </p>
      <div className="field field-wide">
        <label htmlFor={ids.note}>Note (optional)</label>
        <input id={ids.note} type="text" maxLength={2000} value={note} onChange={(e) => setNote(e.target.value)} disabled={update.isPending} data-testid="incident-note" />
      </div>
      <div className="incident-actions">
        {state === 'open' && (
          <GuardedButton action="runtime.incident_update" className="btn btn-small" disabled={update.isPending} onClick={() => send('acknowledged')} data-testid="incident-acknowledge" aria-keyshortcuts="a">
            Acknowledge
          </GuardedButton>
        )}
        {state !== 'resolved' && (
          <GuardedButton action="runtime.incident_update" className="btn btn-small btn-primary" disabled={update.isPending} onClick={() => send('resolved')} data-testid="incident-resolve" aria-keyshortcuts="e">
            Resolve
          </GuardedButton>
        )}
        {state !== 'ignored' && (
          <GuardedButton action="runtime.incident_update" className="btn btn-small" aria-expanded={ignoring} disabled={update.isPending} onClick={() => setIgnoring((v) => !v)} data-testid="incident-ignore">
            Ignore…
          </GuardedButton>
        )}
        {(state !== 'open' || current.regressed) && (
          <GuardedButton action="runtime.incident_update" className="btn btn-small" disabled={update.isPending} onClick={() => send('open')} data-testid="incident-reopen">
            {state === 'open' ? 'Mark open' : 'Reopen'}
          </GuardedButton>
        )}
      </div>
      {ignoring && (
        <form className="incident-ignore" onSubmit={submitIgnore} aria-label="Ignore this incident">
          <div className="field">
            <label htmlFor={ids.by}>Ignore until</label>
            <select id={ids.by} value={ignoreBy} onChange={(e) => setIgnoreBy(e.target.value as typeof ignoreBy)}>
              <option value="time">a time has passed</option>
              <option value="count">it occurs N more times</option>
              <option value="forever">changed by hand</option>
            </select>
          </div>
          {ignoreBy === 'time' && (
            <div className="field">
              <label htmlFor={ids.hours}>For</label>
              <select id={ids.hours} value={hours} onChange={(e) => setHours(e.target.value)}>
                {IGNORE_FOR.map((c) => (
                  <option key={c.hours} value={c.hours}>
                    {c.label}
                  </option>
                ))}
              </select>
            </div>
          )}
          {ignoreBy === 'count' && (
            <div className="field">
              <label htmlFor={ids.count}>More occurrences</label>
              <input id={ids.count} type="number" min={1} step={1} value={occurrences} onChange={(e) => setOccurrences(e.target.value)} />
            </div>
          )}
          <button type="submit" className="btn btn-small" disabled={update.isPending} data-testid="incident-ignore-confirm">
            Ignore
          </button>
        </form>
      )}
      {update.error && <ErrorState compact error={update.error} />}
      <h4>Activity</h4>
      {activity.isPending ? (
        <LoadingState label="Loading activity" />
      ) : activity.isError && activity.data === undefined ? (
        <ErrorState compact error={activity.error} onRetry={() => void activity.refetch()} />
      ) : activity.data.activity.length === 0 ? (
        <p className="muted small">No changes yet: open since it first occurred.</p>
      ) : (
        <ol className="incident-activity" aria-label="Incident activity" data-testid="incident-activity">
          {[...activity.data.activity].reverse().map((a, i) => (
            <li key={`${a.ts}-${i}`}>
              <StatusBadge value={a.action} tone={a.action === 'regressed' ? 'bad' : stateTone({ state: a.action, regressed: false })} />{' '}
              <RelativeTime iso={a.ts} /> <span className="muted small">by {a.actor_token_id === 'runtime' ? 'the runtime (it occurred again)' : <ActorLabel id={a.actor_token_id} name={a.actor_token_name} />}</span>
              {a.ignore_until && (
                <span className="small">
                  {' '}
                  · until <RelativeTime iso={a.ignore_until} />
                </span>
              )}
              {a.ignore_occurrences !== undefined && <span className="small"> · until {a.ignore_occurrences} more occurrences</span>}
              {a.note && <p className="incident-note">{a.note}</p>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
