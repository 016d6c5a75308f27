/**
 * Alert rules: what each watches in words, whom it notifies, whether it is on, and a silence
 * while one holds. Adding and editing open the rule form; deleting asks first (past notices stay).
 */
import { useRef, useState } from 'react';
import { Link } from 'react-router';
import { useAlertDestinations, useAlertRules, useDeleteRule, useUpdateRule, type AlertDestination, type AlertRule } from '../../api/alerts';
import { paths } from '../../paths';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { GuardedButton } from '../../ui/GuardedButton';
import { LoadingState } from '../../ui/LoadingState';
import { Modal, newIdempotencyKey, useDialogKey } from '../../ui/Modal';
import { RefreshButton } from '../../ui/RefreshButton';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { describeTrigger } from './alert-format';
import { RuleDialog } from './RuleForm';
import { SilenceDialog, type SilenceTarget } from './SilenceDialog';
import { ConfirmActions } from '../../ui/ConfirmActions';

export function RulesSection() {
  const rules = useAlertRules();
  const destinations = useAlertDestinations();
  const [editing, setEditing] = useState<{ rule?: AlertRule } | null>(null);
  const [deleting, setDeleting] = useState<AlertRule | null>(null);
  const [silencing, setSilencing] = useState<SilenceTarget | null>(null);
  const known = destinations.data?.items ?? [];

  return (
    <section className="panel" aria-labelledby="rules-title">
      <div className="panel-header">
        <h2 id="rules-title">Rules</h2>
        <RefreshButton query={rules} />
        <GuardedButton action="alert.rule_create" className="btn btn-small btn-primary" onClick={() => setEditing({})} disabled={!destinations.isSuccess} data-testid="add-rule">
          Add a rule…
        </GuardedButton>
      </div>
      {rules.isPending ? (
        <LoadingState label="Loading alert rules" />
      ) : rules.isError && rules.data === undefined ? (
        <ErrorState error={rules.error} onRetry={() => void rules.refetch()} />
      ) : rules.data.items.length === 0 ? (
        <EmptyState title="No alert rules yet">
          <p>
            A rule sends a notice to a webhook or Slack when an incident opens, a mailbox item waits too long, a node dies…{' '}
            {known.length === 0 && (
              <>
                Start by <Link to={paths.alerts('destinations')}>adding a destination</Link>.
              </>
            )}
          </p>
        </EmptyState>
      ) : (
        <>
          {destinations.isError && <ErrorState compact error={destinations.error} onRetry={() => void destinations.refetch()} />}
          <ul className="card-list" aria-label="Alert rules">
            {rules.data.items.map((rule) => (
              <RuleCard
                key={rule.id}
                rule={rule}
                destinations={known}
                onEdit={() => setEditing({ rule })}
                onDelete={() => setDeleting(rule)}
                onSilence={() => setSilencing({ kind: 'rule', ruleId: rule.id, label: rule.name })}
              />
            ))}
          </ul>
        </>
      )}
      <RuleDialog open={editing !== null} rule={editing?.rule} destinations={known} onClose={() => setEditing(null)} />
      <DeleteRuleDialog rule={deleting} onClose={() => setDeleting(null)} />
      <SilenceDialog target={silencing} onClose={() => setSilencing(null)} />
    </section>
  );
}

function RuleCard({
  rule,
  destinations,
  onEdit,
  onDelete,
  onSilence,
}: {
  rule: AlertRule;
  destinations: AlertDestination[];
  onEdit: () => void;
  onDelete: () => void;
  onSilence: () => void;
}) {
  const toggle = useUpdateRule();
  const nameOf = (id: string) => destinations.find((d) => d.id === id)?.name ?? id;
  return (
    <li className="card alert-card" data-testid="rule-row" data-rule-id={rule.id}>
      <div className="alert-card-head">
        <strong className="alert-card-name">{rule.name}</strong>
        {rule.enabled ? <StatusBadge value="enabled" tone="ok" /> : <StatusBadge value="disabled" tone="neutral" />}
        {rule.source === 'bundle' && (
          <span className="badge badge-info" title="Declared in the bundle; the stored rule is what counts after boot">
            bundle
          </span>
        )}
        {rule.silenced_until && (
          <span className="badge badge-warn" data-testid="rule-silenced">
            silenced, ends&nbsp;
            <RelativeTime iso={rule.silenced_until} />
          </span>
        )}
      </div>
      <p className="alert-card-line" data-testid="rule-trigger-words">
        {describeTrigger(rule.when)}
      </p>
      <p className="alert-card-line small">
        <span className="muted">Notifies </span>
        {rule.destination_ids.map(nameOf).join(', ')}
        {rule.escalation_destination_ids.length > 0 && (
          <>
            <span className="muted">; escalates to </span>
            {rule.escalation_destination_ids.map(nameOf).join(', ')}
          </>
        )}
      </p>
      {toggle.error && <ErrorState compact error={toggle.error} />}
      <div className="alert-card-actions">
        <GuardedButton action="alert.rule_update" className="btn btn-small" onClick={onEdit} data-testid="edit-rule">
          Edit…<span className="visually-hidden"> {rule.name}</span>
        </GuardedButton>
        <GuardedButton
          action="alert.rule_update"
          className="btn btn-small"
          disabled={toggle.isPending}
          onClick={() => toggle.mutate({ rule_id: rule.id, enabled: !rule.enabled, idempotency_key: newIdempotencyKey() })}
          data-testid="toggle-rule"
        >
          {rule.enabled ? 'Disable' : 'Enable'}
          <span className="visually-hidden"> {rule.name}</span>
        </GuardedButton>
        <GuardedButton action="alert.silence_create" className="btn btn-small" onClick={onSilence} data-testid="silence-rule">
          Silence…<span className="visually-hidden"> {rule.name}</span>
        </GuardedButton>
        <Link className="btn btn-small btn-quiet" to={paths.alerts('history', { rule: rule.id })}>
          Notices<span className="visually-hidden"> of {rule.name}</span>
        </Link>
        <GuardedButton action="alert.rule_delete" className="btn btn-small btn-danger-outline" onClick={onDelete} data-testid="delete-rule">
          Delete…<span className="visually-hidden"> {rule.name}</span>
        </GuardedButton>
      </div>
    </li>
  );
}

function DeleteRuleDialog({ rule, onClose }: { rule: AlertRule | null; onClose: () => void }) {
  const open = rule !== null;
  const { key } = useDialogKey(open);
  const remove = useDeleteRule();
  const cancelRef = useRef<HTMLButtonElement>(null);
  const close = () => {
    remove.reset();
    onClose();
  };
  return (
    <Modal open={open} onOpenChange={(o) => !o && close()} title="Delete this rule?" tone="danger" testId="delete-rule-dialog" initialFocus={cancelRef}>
      {rule && (
        <>
          <p>
            <strong>{rule.name}</strong> stops sending notices. The notices it already sent stay in the history.
            {rule.source === 'bundle' && ' It was declared in the bundle, so the next boot adds it again while the bundle declares it: disable it instead to keep it off.'}
          </p>
          {remove.error && <ErrorState compact error={remove.error} />}
          <ConfirmActions
            onKeep={close}
            keepRef={cancelRef}
            pending={remove.isPending}
            onConfirm={() => remove.mutate({ rule_id: rule.id, idempotency_key: key }, { onSuccess: close })}
            label="Delete rule"
            pendingLabel="Deleting…"
            testId="confirm-delete-rule"
          />
        </>
      )}
    </Modal>
  );
}
