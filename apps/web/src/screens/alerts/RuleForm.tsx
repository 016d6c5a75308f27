/**
 * Adding or changing an alert rule: a name, what it watches (the trigger and the fields that
 * trigger takes), the destinations it notifies and, for a mailbox SLA, where it escalates. One
 * opening of the dialog is one idempotency key, so a double click saves once.
 */
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { Link } from 'react-router';
import type { AlertTrigger } from '@switchboard/contract';
import { useCreateRule, useUpdateRule, type AlertDestination, type AlertRule } from '../../api/alerts';
import { paths } from '../../paths';
import { ErrorState } from '../../ui/ErrorState';
import { Modal, useDialogKey } from '../../ui/Modal';
import { TRIGGER_LABELS, TRIGGER_NAMES, type TriggerName } from './alert-format';

/** `rule` undefined: a new rule. */
export function RuleDialog({ open, rule, destinations, onClose }: { open: boolean; rule: AlertRule | undefined; destinations: AlertDestination[]; onClose: () => void }) {
  return (
    <Modal open={open} onOpenChange={(o) => !o && onClose()} title={rule ? `Edit rule “${rule.name}”` : 'Add an alert rule'} testId="rule-dialog" wide>
      {open && <RuleForm key={rule?.id ?? 'new'} rule={rule} destinations={destinations} onDone={onClose} />}
    </Modal>
  );
}

const DURATION_UNITS = [
  { value: 1, label: 'seconds' },
  { value: 60, label: 'minutes' },
  { value: 3600, label: 'hours' },
  { value: 86_400, label: 'days' },
] as const;

interface Duration {
  amount: string;
  unit: number;
}

function durationOf(seconds: number | undefined, fallback: Duration): Duration {
  if (!seconds) return fallback;
  const unit = [...DURATION_UNITS].reverse().find((u) => seconds % u.value === 0)?.value ?? 1;
  return { amount: String(seconds / unit), unit };
}

/** The form's fields, as typed; numbers stay text until they are checked. */
interface Draft {
  name: string;
  trigger: TriggerName;
  minLevel: '' | 'warn' | 'error';
  threshold: string;
  window: Duration;
  mailboxType: string;
  perMinute: string;
  olderThan: Duration;
  destinationIds: string[];
  escalationIds: string[];
  enabled: boolean;
}

function draftOf(rule: AlertRule | undefined): Draft {
  const w = rule?.when;
  return {
    name: rule?.name ?? '',
    trigger: w?.trigger ?? 'incident.opened',
    minLevel: w && (w.trigger === 'incident.opened' || w.trigger === 'incident.regressed') ? (w.min_level ?? '') : '',
    threshold: w?.trigger === 'incident.occurrences' ? String(w.threshold) : '100',
    window: durationOf(w?.trigger === 'incident.occurrences' ? w.window_s : undefined, { amount: '5', unit: 60 }),
    mailboxType: w?.trigger === 'mailbox.sla' ? (w.mailbox_type ?? '') : '',
    perMinute: w?.trigger === 'dead_letters.rate' ? String(w.per_minute) : '10',
    olderThan: durationOf(w?.trigger === 'queue.oldest_pending' ? w.older_than_s : undefined, { amount: '10', unit: 60 }),
    destinationIds: rule?.destination_ids ?? [],
    escalationIds: rule?.escalation_destination_ids ?? [],
    enabled: rule?.enabled ?? true,
  };
}

const positiveInt = (text: string): number | undefined => (/^\d+$/.test(text.trim()) && Number(text) >= 1 ? Number(text) : undefined);

/** The trigger as alert.rule_create takes it, or what is wrong with the fields. */
function triggerOf(d: Draft): { when: AlertTrigger } | { problem: string } {
  switch (d.trigger) {
    case 'incident.opened':
    case 'incident.regressed':
      return { when: { trigger: d.trigger, ...(d.minLevel ? { min_level: d.minLevel } : {}) } };
    case 'incident.occurrences': {
      const threshold = positiveInt(d.threshold);
      const amount = positiveInt(d.window.amount);
      if (!threshold) return { problem: 'The threshold is a whole number of occurrences, 1 or more.' };
      if (!amount) return { problem: 'The window is a whole number, 1 or more.' };
      if (amount * d.window.unit > 7 * 86_400) return { problem: 'The window is at most 7 days.' };
      return { when: { trigger: d.trigger, threshold, window_s: amount * d.window.unit } };
    }
    case 'mailbox.sla':
      return { when: { trigger: d.trigger, ...(d.mailboxType.trim() ? { mailbox_type: d.mailboxType.trim() } : {}) } };
    case 'dead_letters.rate': {
      const perMinute = positiveInt(d.perMinute);
      if (!perMinute) return { problem: 'Dead letters per minute is a whole number, 1 or more.' };
      return { when: { trigger: d.trigger, per_minute: perMinute } };
    }
    case 'queue.oldest_pending': {
      const amount = positiveInt(d.olderThan.amount);
      if (!amount) return { problem: 'The age is a whole number, 1 or more.' };
      if (amount * d.olderThan.unit > 30 * 86_400) return { problem: 'The age is at most 30 days.' };
      return { when: { trigger: d.trigger, older_than_s: amount * d.olderThan.unit } };
    }
    case 'server.dead':
    case 'reset.applied':
    case 'operation.failed':
      return { when: { trigger: d.trigger } };
  }
}

function RuleForm({ rule, destinations, onDone }: { rule: AlertRule | undefined; destinations: AlertDestination[]; onDone: () => void }) {
  const { key } = useDialogKey(true);
  const create = useCreateRule();
  const update = useUpdateRule();
  const saving = create.isPending || update.isPending;
  const error = create.error ?? update.error;
  const [draft, setDraft] = useState(() => draftOf(rule));
  const [tried, setTried] = useState(false);
  const ids = { name: useId(), trigger: useId(), minLevel: useId(), threshold: useId(), window: useId(), mailboxType: useId(), perMinute: useId(), olderThan: useId(), enabled: useId() };
  const set = <K extends keyof Draft>(k: K, v: Draft[K]) => setDraft((d) => ({ ...d, [k]: v }));
  const trigger = triggerOf(draft);
  const escalates = draft.trigger === 'mailbox.sla';
  const problem =
    !draft.name.trim() ? 'Give the rule a name.' : 'problem' in trigger ? trigger.problem : draft.destinationIds.length === 0 ? 'Pick at least one destination.' : undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (problem || 'problem' in trigger) return;
    const fields = {
      name: draft.name.trim(),
      when: trigger.when,
      destination_ids: draft.destinationIds,
      escalation_destination_ids: escalates ? draft.escalationIds : [],
      enabled: draft.enabled,
      idempotency_key: key,
    };
    if (rule) update.mutate({ rule_id: rule.id, ...fields }, { onSuccess: onDone });
    else create.mutate(fields, { onSuccess: onDone });
  };

  if (destinations.length === 0) {
    return (
      <div className="rule-form">
        <p>A rule sends to destinations, and there are none yet.</p>
        <p>
          <Link to={paths.alerts('destinations')} onClick={onDone}>
            Add a webhook or Slack destination first
          </Link>
          .
        </p>
      </div>
    );
  }

  return (
    <form className="rule-form" onSubmit={submit} noValidate>
      <div className="field field-wide">
        <label htmlFor={ids.name}>Name</label>
        <input id={ids.name} type="text" maxLength={100} value={draft.name} onChange={(e) => set('name', e.target.value)} autoFocus data-testid="rule-name" />
      </div>
      <div className="field field-wide">
        <label htmlFor={ids.trigger}>When</label>
        <select id={ids.trigger} value={draft.trigger} onChange={(e) => set('trigger', e.target.value as TriggerName)} data-testid="rule-trigger">
          {TRIGGER_NAMES.map((t) => (
            <option key={t} value={t}>
              {TRIGGER_LABELS[t]}
            </option>
          ))}
        </select>
      </div>
      <div className="rule-trigger-fields">
        {(draft.trigger === 'incident.opened' || draft.trigger === 'incident.regressed') && (
          <div className="field">
            <label htmlFor={ids.minLevel}>Level</label>
            <select id={ids.minLevel} value={draft.minLevel} onChange={(e) => set('minLevel', e.target.value as Draft['minLevel'])} data-testid="rule-min-level">
              <option value="">Every incident (warn and error)</option>
              <option value="error">Error incidents only</option>
            </select>
          </div>
        )}
        {draft.trigger === 'incident.occurrences' && (
          <>
            <div className="field">
              <label htmlFor={ids.threshold}>Occurrences of one incident</label>
              <input id={ids.threshold} type="number" min={1} step={1} inputMode="numeric" value={draft.threshold} onChange={(e) => set('threshold', e.target.value)} data-testid="rule-threshold" />
            </div>
            <DurationField id={ids.window} label="Within" value={draft.window} onChange={(v) => set('window', v)} testId="rule-window" />
          </>
        )}
        {draft.trigger === 'mailbox.sla' && (
          <div className="field">
            <label htmlFor={ids.mailboxType}>Mailbox type (empty: every type with an SLA)</label>
            <input id={ids.mailboxType} type="text" maxLength={100} value={draft.mailboxType} onChange={(e) => set('mailboxType', e.target.value)} spellCheck={false} data-testid="rule-mailbox-type" />
          </div>
        )}
        {draft.trigger === 'dead_letters.rate' && (
          <div className="field">
            <label htmlFor={ids.perMinute}>Dead letters per minute, at least</label>
            <input id={ids.perMinute} type="number" min={1} step={1} inputMode="numeric" value={draft.perMinute} onChange={(e) => set('perMinute', e.target.value)} data-testid="rule-per-minute" />
          </div>
        )}
        {draft.trigger === 'queue.oldest_pending' && (
          <DurationField id={ids.olderThan} label="Older than" value={draft.olderThan} onChange={(v) => set('olderThan', v)} testId="rule-older-than" />
        )}
      </div>
      {draft.trigger === 'mailbox.sla' && (
        <p className="muted small">Each mailbox type declares its SLA and escalation delay in the bundle (mailbox_types.&lt;type&gt;.sla).</p>
      )}
      <DestinationPicks
        legend="Notify"
        destinations={destinations}
        picked={draft.destinationIds}
        onChange={(v) => set('destinationIds', v)}
        testId="rule-destinations"
      />
      {escalates && (
        <DestinationPicks
          legend="Escalate to (still pending after the SLA’s escalation delay)"
          destinations={destinations}
          picked={draft.escalationIds}
          onChange={(v) => set('escalationIds', v)}
          testId="rule-escalation"
        />
      )}
      <div className="field-inline">
        <input id={ids.enabled} type="checkbox" checked={draft.enabled} onChange={(e) => set('enabled', e.target.checked)} data-testid="rule-enabled" />
        <label htmlFor={ids.enabled}>Enabled</label>
      </div>
      {tried && problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
      {error && <ErrorState compact error={error} />}
      <div className="modal-actions">
        <button type="button" className="btn" onClick={onDone} disabled={saving}>
          Cancel
        </button>
        <button type="submit" className="btn btn-primary" disabled={saving} data-testid="save-rule">
          {saving ? 'Saving…' : rule ? 'Save rule' : 'Add rule'}
        </button>
      </div>
    </form>
  );
}

function DurationField({ id, label, value, onChange, testId }: { id: string; label: string; value: Duration; onChange: (v: Duration) => void; testId: string }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <span className="duration-field">
        <input id={id} type="number" min={1} step={1} inputMode="numeric" value={value.amount} onChange={(e) => onChange({ ...value, amount: e.target.value })} data-testid={testId} />
        <select aria-label={`${label}: unit`} value={value.unit} onChange={(e) => onChange({ ...value, unit: Number(e.target.value) })} data-testid={`${testId}-unit`}>
          {DURATION_UNITS.map((u) => (
            <option key={u.value} value={u.value}>
              {u.label}
            </option>
          ))}
        </select>
      </span>
    </div>
  );
}

function DestinationPicks({
  legend,
  destinations,
  picked,
  onChange,
  testId,
}: {
  legend: ReactNode;
  destinations: AlertDestination[];
  picked: string[];
  onChange: (ids: string[]) => void;
  testId: string;
}) {
  const toggle = (id: string, on: boolean) => onChange(on ? [...picked, id] : picked.filter((p) => p !== id));
  const known = new Set(destinations.map((d) => d.id));
  const missing = picked.filter((id) => !known.has(id));
  return (
    <fieldset className="destination-picks" data-testid={testId}>
      <legend>{legend}</legend>
      {destinations.map((d) => (
        <label key={d.id} className="destination-pick">
          <input type="checkbox" checked={picked.includes(d.id)} onChange={(e) => toggle(d.id, e.target.checked)} /> {d.name}{' '}
          <span className="muted small">{d.kind === 'slack' ? 'Slack' : 'webhook'}</span>
        </label>
      ))}
      {missing.map((id) => (
        <label key={id} className="destination-pick">
          <input type="checkbox" checked onChange={() => toggle(id, false)} /> <code>{id}</code> <span className="muted small">no longer exists</span>
        </label>
      ))}
    </fieldset>
  );
}
