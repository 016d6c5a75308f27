/**
 * Muting a rule, or every rule for one incident, until a time, with a reason (kept in the audit
 * trail). Opened from a rule, from an incident, or from the Silences list with a free choice.
 * Transitions while silenced make no notice; they are not sent later.
 */
import { useId, useState, type FormEvent } from 'react';
import { useAlertRules, useCreateSilence } from '../../api/alerts';
import { GuardedButton } from '../../ui/GuardedButton';
import { ErrorState } from '../../ui/ErrorState';
import { Modal, useDialogKey } from '../../ui/Modal';
import { formatExact } from '../../ui/RelativeTime';
import './SilenceDialog.css';

/** What to silence: fixed by the opener, or chosen in the dialog (`choose`). */
export type SilenceTarget = { kind: 'rule'; ruleId: string; label: string } | { kind: 'incident'; incidentId: string; label: string } | { kind: 'choose' };

const QUICK_PICKS = [
  { label: '1 hour', hours: 1 },
  { label: '4 hours', hours: 4 },
  { label: '24 hours', hours: 24 },
] as const;

export function SilenceDialog({ target, onClose, onCreated }: { target: SilenceTarget | null; onClose: () => void; onCreated?: () => void }) {
  const title = !target ? 'Silence' : target.kind === 'rule' ? `Silence rule “${target.label}”` : target.kind === 'incident' ? 'Silence alerts for this incident' : 'Add a silence';
  return (
    <Modal open={target !== null} onOpenChange={(o) => !o && onClose()} title={title} testId="silence-dialog">
      {target && (
        <SilenceForm
          target={target}
          onDone={() => {
            onCreated?.();
            onClose();
          }}
          onCancel={onClose}
        />
      )}
    </Modal>
  );
}

/** `datetime-local` speaks local time without a zone; the server speaks ISO (UTC). */
function toLocalInput(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function SilenceForm({ target, onDone, onCancel }: { target: SilenceTarget; onDone: () => void; onCancel: () => void }) {
  const ids = { kind: useId(), rule: useId(), incident: useId(), until: useId(), reason: useId() };
  const { key } = useDialogKey(true);
  const create = useCreateSilence();
  const choosing = target.kind === 'choose';
  const rules = useAlertRules();
  const [kind, setKind] = useState<'rule' | 'incident'>(target.kind === 'incident' ? 'incident' : 'rule');
  const [ruleId, setRuleId] = useState(target.kind === 'rule' ? target.ruleId : '');
  const [incidentId, setIncidentId] = useState(target.kind === 'incident' ? target.incidentId : '');
  const [until, setUntil] = useState(() => toLocalInput(Date.now() + 3_600_000));
  const [reason, setReason] = useState('');
  const [tried, setTried] = useState(false);

  const untilMs = until ? new Date(until).getTime() : NaN;
  const subject = kind === 'rule' ? ruleId : incidentId.trim();
  const problem = !subject
    ? kind === 'rule'
      ? 'Pick the rule to silence.'
      : 'Give the incident id.'
    : Number.isNaN(untilMs)
      ? 'Give the time the silence ends.'
      : untilMs <= Date.now()
        ? 'The end of the silence must be in the future.'
        : !reason.trim()
          ? 'Say why (it is kept with the silence and in the audit trail).'
          : undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (problem) return;
    create.mutate(
      { ...(kind === 'rule' ? { rule_id: subject } : { incident_id: subject }), until: new Date(untilMs).toISOString(), reason: reason.trim(), idempotency_key: key },
      { onSuccess: onDone },
    );
  };

  return (
    <form className="silence-form" onSubmit={submit} noValidate>
      {choosing ? (
        <>
          <fieldset className="choice-group">
            <legend className="visually-hidden">What to silence</legend>
            <label>
              <input type="radio" name={ids.kind} checked={kind === 'rule'} onChange={() => setKind('rule')} data-testid="silence-kind-rule" /> A rule
            </label>
            <label>
              <input type="radio" name={ids.kind} checked={kind === 'incident'} onChange={() => setKind('incident')} data-testid="silence-kind-incident" /> One incident (every rule)
            </label>
          </fieldset>
          {kind === 'rule' ? (
            <div className="field field-wide">
              <label htmlFor={ids.rule}>Rule</label>
              <select id={ids.rule} value={ruleId} onChange={(e) => setRuleId(e.target.value)} data-testid="silence-rule-select">
                <option value="">{rules.isPending ? 'Loading rules…' : 'Pick a rule'}</option>
                {rules.data?.items.map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.name}
                  </option>
                ))}
              </select>
            </div>
          ) : (
            <div className="field field-wide">
              <label htmlFor={ids.incident}>Incident id</label>
              <input id={ids.incident} type="text" maxLength={500} value={incidentId} onChange={(e) => setIncidentId(e.target.value)} spellCheck={false} data-testid="silence-incident" />
            </div>
          )}
        </>
      ) : (
        <p>
          {target.kind === 'rule' ? 'No notices from this rule' : 'No notices about this incident, from any rule,'} until the time below. Transitions meanwhile are not sent
          later.
          {target.kind === 'incident' && (
            <>
              {' '}
              <code className="small">{target.incidentId}</code>
            </>
          )}
        </p>
      )}
      <div className="field field-wide">
        <label htmlFor={ids.until}>Until</label>
        <div className="silence-until">
          {QUICK_PICKS.map((q) => (
            <button key={q.hours} type="button" className="btn btn-small" onClick={() => setUntil(toLocalInput(Date.now() + q.hours * 3_600_000))} data-testid={`silence-for-${q.hours}h`}>
              {q.label}
            </button>
          ))}
          <input id={ids.until} type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} data-testid="silence-until" />
        </div>
        {!Number.isNaN(untilMs) && <span className="muted small">Ends {formatExact(new Date(untilMs).toISOString())}</span>}
      </div>
      <div className="field field-wide">
        <label htmlFor={ids.reason}>Reason (required)</label>
        <textarea id={ids.reason} rows={2} maxLength={500} value={reason} onChange={(e) => setReason(e.target.value)} data-testid="silence-reason" />
      </div>
      {tried && problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
      {create.error && <ErrorState compact error={create.error} />}
      <div className="modal-actions">
        <button type="button" className="btn" onClick={onCancel} disabled={create.isPending}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={create.isPending} data-testid="confirm-silence">
          {create.isPending ? 'Silencing…' : 'Silence'}
        </button>
      </div>
    </form>
  );
}

/** "Silence alerts for this incident", for the incident page: the button and its dialog. */
export function SilenceIncidentButton({ incidentId }: { incidentId: string }) {
  const [open, setOpen] = useState(false);
  const [done, setDone] = useState(false);
  return (
    <>
      <GuardedButton action="alert.silence_create" className="btn btn-small" onClick={() => setOpen(true)} data-testid="silence-incident">
        Silence alerts for this incident…
      </GuardedButton>
      {done && (
        <span className="muted small" role="status">
          {' '}
          Silenced; see it under Alerts, Silences.
        </span>
      )}
      <SilenceDialog target={open ? { kind: 'incident', incidentId, label: incidentId } : null} onClose={() => setOpen(false)} onCreated={() => setDone(true)} />
    </>
  );
}
