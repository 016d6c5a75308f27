/**
 * Silences: the active ones (and, with "Show ended" in the URL, those that expired or were ended),
 * adding one, and ending one now.
 */
import { useState } from 'react';
import { Link } from 'react-router';
import { useAlertRules, useAlertSilences, useEndSilence, type AlertSilence } from '../../api/alerts';
import { paths } from '../../paths';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { GuardedButton } from '../../ui/GuardedButton';
import { LoadingState } from '../../ui/LoadingState';
import { newIdempotencyKey } from '../../ui/Modal';
import { RefreshButton } from '../../ui/RefreshButton';
import { RelativeTime } from '../../ui/RelativeTime';
import { StatusBadge } from '../../ui/StatusBadge';
import { UrlCheckbox } from '../../ui/UrlCheckbox';
import { useUrlState } from '../../url-state';
import { SilenceDialog, type SilenceTarget } from './SilenceDialog';

export function SilencesSection() {
  const [params, update] = useUrlState();
  const includeEnded = params.get('ended') === '1';
  const silences = useAlertSilences(includeEnded);
  const rules = useAlertRules();
  const [adding, setAdding] = useState<SilenceTarget | null>(null);
  const ruleName = (id: string) => rules.data?.items.find((r) => r.id === id)?.name;

  return (
    <section className="panel" aria-labelledby="silences-title">
      <div className="alerts-panel-header">
        <h2 id="silences-title">Silences</h2>
        <label className="field-inline">
          <UrlCheckbox checked={includeEnded} onCheckedChange={(v) => update({ ended: v })} data-testid="silences-show-ended" /> Show ended
        </label>
        <RefreshButton query={silences} />
        <GuardedButton action="alert.silence_create" className="btn btn-small btn-primary" onClick={() => setAdding({ kind: 'choose' })} data-testid="add-silence">
          Add a silence…
        </GuardedButton>
      </div>
      {silences.isPending ? (
        <LoadingState label="Loading silences" />
      ) : silences.isError && silences.data === undefined ? (
        <ErrorState error={silences.error} onRetry={() => void silences.refetch()} />
      ) : silences.data.items.length === 0 ? (
        <EmptyState title={includeEnded ? 'No silences yet' : 'Nothing is silenced'}>
          <p>Silence a rule, or every rule for one incident, for a while with a reason: no notices are made meanwhile.</p>
        </EmptyState>
      ) : (
        <ul className="card-list" aria-label="Silences">
          {silences.data.items.map((s) => (
            <SilenceCard key={s.id} silence={s} ruleName={s.rule_id ? ruleName(s.rule_id) : undefined} />
          ))}
        </ul>
      )}
      <SilenceDialog target={adding} onClose={() => setAdding(null)} />
    </section>
  );
}

function SilenceCard({ silence: s, ruleName }: { silence: AlertSilence; ruleName: string | undefined }) {
  const end = useEndSilence();
  return (
    <li className="card alert-card" data-testid="silence-row" data-silence-id={s.id}>
      <div className="alert-card-head">
        <strong className="alert-card-name">
          {s.rule_id ? (
            <>Rule {ruleName ?? <code>{s.rule_id}</code>}</>
          ) : (
            <>
              Incident{' '}
              <Link className="mono" to={paths.incident(s.incident_id!)}>
                {s.incident_id}
              </Link>
            </>
          )}
        </strong>
        {s.active ? <StatusBadge value="active" tone="warn" /> : <StatusBadge value={s.ended_at ? 'ended' : 'expired'} tone="neutral" />}
      </div>
      <p className="alert-card-line reason-text">{s.reason}</p>
      <p className="alert-card-line small muted">
        {s.active ? 'Ends ' : s.ended_at ? 'Ended ' : 'Expired '}
        <RelativeTime iso={s.active || !s.ended_at ? s.until : s.ended_at} />
        {s.created_by ? ` · by ${s.created_by}` : ''}
        {', created '}
        <RelativeTime iso={s.created_at} />
      </p>
      {end.error && <ErrorState compact error={end.error} />}
      {s.active && (
        <div className="alert-card-actions">
          <GuardedButton
            action="alert.silence_end"
            className="btn btn-small"
            disabled={end.isPending}
            onClick={() => end.mutate({ silence_id: s.id, idempotency_key: newIdempotencyKey() })}
            data-testid="end-silence"
          >
            {end.isPending ? 'Ending…' : 'End now'}
          </GuardedButton>
        </div>
      )}
    </li>
  );
}
