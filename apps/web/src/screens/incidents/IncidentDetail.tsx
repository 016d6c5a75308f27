/**
 * One incident, where the work on it starts: its summary and cause, its occurrences by subscriber,
 * reason and event, one sample payload, the tool server it names, redriving its dead letters
 * (estimated first, pre-scoped to exactly those), its state, and sample log records, each linking
 * to the event, run and dead letter it names.
 */
import { useState } from 'react';
import type { Incident, LogRecord, Result } from '@switchboard/contract';
import { useQueryClient } from '@tanstack/react-query';
import { Link } from 'react-router';
import { useEvent } from '../../api/events';
import { useIncidentLogs } from '../../api/incidents';
import { rpcKeys } from '../../api/query-client';
import { RecoveryDialog } from '../operations/RecoveryDialog';
import { JsonTree } from '../../ui/JsonTree';
import { paths } from '../../paths';
import { DetailPanel } from '../../ui/DetailPanel';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { RelativeTime } from '../../ui/RelativeTime';
import { Sparkline, sparklineLabel } from '../../ui/Sparkline';
import { StatusBadge } from '../../ui/StatusBadge';
import { IncidentStatePanel } from './IncidentStatePanel';
import { causeLabel } from './incident-state';
import { CountBreakdown } from '../../ui/CountBreakdown';
import { GuardedButton } from '../../ui/GuardedButton';
import { SilenceIncidentButton } from '../alerts/SilenceDialog';
import './IncidentDetail.css';

type IncidentLogs = Result<'runtime.incident_logs'>;

export function IncidentDetail({
  incidentId,
  incident: current,
  summary,
  windowHours,
  onClose,
}: {
  incidentId: string;
  /** As the loaded list has it now (absent when a filter or a state change took it out). */
  incident: Incident | undefined;
  /** The incident as last seen in the list, for the summary. */
  summary?: Incident | undefined;
  windowHours: number;
  onClose: () => void;
}) {
  const logs = useIncidentLogs(incidentId, windowHours);
  const incident = current ?? summary;
  const cause = incident ? causeLabel(incident) : undefined;
  const title = incident ? `${incident.component}${incident.error_code ? ` · ${incident.error_code}` : ''}${cause ? ` · ${cause}` : ''}` : 'Incident';
  return (
    <DetailPanel title={title} label="Incident details" onClose={onClose}>
      {incident ? (
        <>
          <dl className="kv">
            <dt>Level</dt>
            <dd>
              <StatusBadge value={incident.level} />
            </dd>
            <dt>Component</dt>
            <dd className="mono">{incident.component}</dd>
            <dt>Error code</dt>
            <dd className="mono">{incident.error_code ?? '—'}</dd>
            {incident.subscriber_id && (
              <>
                <dt>Subscriber</dt>
                <dd>
                  <Link to={paths.subscriber(incident.subscriber_id)} className="mono">
                    {incident.subscriber_id}
                  </Link>
                </dd>
              </>
            )}
            {incident.reason_code && (
              <>
                <dt>Reason</dt>
                <dd className="mono">{incident.reason_code}</dd>
              </>
            )}
            {incident.tool_server && (
              <>
                <dt>Tool server</dt>
                <dd>
                  <Link to={paths.toolServer(incident.tool_server)} data-testid="incident-tool-server">
                    {incident.tool_server} on the Runtime page (fault switches)
                  </Link>
                </dd>
              </>
            )}
            <dt>Count</dt>
            <dd>{incident.count.toLocaleString()}</dd>
            <dt>First seen</dt>
            <dd>
              <RelativeTime iso={incident.first_seen} />
            </dd>
            <dt>Last seen</dt>
            <dd>
              <RelativeTime iso={incident.last_seen} />
            </dd>
            {incident.histogram && (
              <>
                <dt>Occurrences</dt>
                <dd>
                  <Sparkline values={incident.histogram} label={sparklineLabel(incident.histogram, windowHours)} />
                </dd>
              </>
            )}
            <dt>Sample</dt>
            <dd className="error-text">{incident.sample_message}</dd>
          </dl>
        </>
      ) : (
        <p className="muted">
          Incident <code>{incidentId}</code> is not in the loaded list (other filters or an older page); its log records follow.
        </p>
      )}
      {logs.data?.dead_letters && <DeadLetterRecovery incidentId={incidentId} {...logs.data.dead_letters} />}
      <IncidentStatePanel incidentId={incidentId} incident={current} />
      <p className="incident-silence">
        <SilenceIncidentButton incidentId={incidentId} />
      </p>
      {logs.isSuccess && <Occurrences data={logs.data} />}
      <h3>Sample log records</h3>
      {logs.isPending ? (
        <LoadingState label="Loading log records" />
      ) : logs.isError && logs.data === undefined ? (
        <ErrorState compact error={logs.error} onRetry={() => void logs.refetch()} />
      ) : logs.data.logs.length === 0 ? (
        <EmptyState title="No log records in this window" />
      ) : (
        <ul className="card-list" aria-label="Log records">
          {logs.data.logs.map((log) => (
            <LogCard key={log.log_id} log={log} />
          ))}
        </ul>
      )}
    </DetailPanel>
  );
}

function LogCard({ log }: { log: LogRecord }) {
  return (
    <li className="card" data-testid="log-record">
      <div className="summary-line">
        <StatusBadge value={log.level} /> <RelativeTime iso={log.ts} /> <span className="mono muted">{log.log_id}</span>
      </div>
      <p className="error-text">{log.message}</p>
      <dl className="kv">
        {log.event_id && (
          <>
            <dt>Event</dt>
            <dd>
              <Link to={paths.event(log.event_id)} className="mono">
                {log.event_id}
              </Link>
            </dd>
          </>
        )}
        {log.run_id && (
          <>
            <dt>Run</dt>
            <dd>
              <Link to={paths.run(log.run_id)} className="mono">
                {log.run_id}
              </Link>
            </dd>
          </>
        )}
        <DeadLetterLink log={log} />
        {log.entity_id && (
          <>
            <dt>Entity</dt>
            <dd>
              <Link to={paths.entity(log.entity_id)} className="mono">
                {log.entity_id}
              </Link>
            </dd>
          </>
        )}
        {log.session_id && (
          <>
            <dt>Session</dt>
            <dd>
              <Link to={paths.session(log.session_id)} className="mono">
                {log.session_id}
              </Link>
            </dd>
          </>
        )}
        {log.delivery_id && (
          <>
            <dt>Delivery</dt>
            <dd>
              {log.event_id ? (
                <Link to={paths.delivery(log.event_id, log.delivery_id)} className="mono">
                  {log.delivery_id}
                </Link>
              ) : (
                <span className="mono">{log.delivery_id}</span>
              )}
            </dd>
          </>
        )}
      </dl>
    </li>
  );
}

/**
 * The dead letter a log record points at: named on the record, or found through its delivery (a
 * tool failure is logged before its delivery dead-letters, so the record itself cannot name it).
 */
function DeadLetterLink({ log }: { log: LogRecord }) {
  const lookUp = !log.dead_letter_id && Boolean(log.event_id && log.delivery_id);
  const event = useEvent(lookUp ? log.event_id : undefined);
  const deadLetterId = log.dead_letter_id ?? event.data?.dead_letters.find((d) => d.delivery_id === log.delivery_id)?.dead_letter_id;
  if (!deadLetterId) return null;
  return (
    <>
      <dt>Dead letter</dt>
      <dd>
        {log.event_id ? (
          <Link to={paths.deadLetter(log.event_id, deadLetterId)} className="mono" data-testid="dead-letter-link">
            {deadLetterId}
          </Link>
        ) : (
          <span className="mono">{deadLetterId}</span>
        )}
      </dd>
    </>
  );
}

/**
 * Whether the incident's dead letters were sent again and got through, and redriving the rest:
 * the estimate dialog, scoped to exactly the ids the incident names (a snapshot taken on opening,
 * so the plan does not move while the operator reads it). The callout follows the redrive live
 * (delivery changes re-read runtime.incident_logs) and once more when the dialog closes.
 */
function DeadLetterRecovery({
  incidentId,
  total,
  redriven,
  delivered,
  redrivable_ids: redrivable = [],
}: NonNullable<IncidentLogs['dead_letters']> & { incidentId: string }) {
  const queryClient = useQueryClient();
  const [scope, setScope] = useState<string[] | null>(null);
  const all = delivered === total;
  const n = redrivable.length;
  return (
    <div className={`callout incident-recovery ${all ? 'callout-ok' : redriven > 0 ? 'callout-info' : ''}`}>
      <p data-testid="incident-recovery" aria-live="polite">
        {all
          ? `All ${total.toLocaleString()} dead letter${total === 1 ? '' : 's'} of this incident were redriven and delivered.`
          : `${total.toLocaleString()} dead letter${total === 1 ? '' : 's'}: ${redriven.toLocaleString()} redriven, ${delivered.toLocaleString()} of those delivered.`}
      </p>
      {n > 0 && (
        <GuardedButton action="event.redrive" className="btn btn-small" onClick={() => setScope(redrivable)} data-testid="incident-redrive">
          Redrive {n === 1 ? 'this dead letter' : `these ${n.toLocaleString()} dead letters`}…
        </GuardedButton>
      )}
      {scope && (
        <RecoveryDialog
          kind="redrive"
          selection={{ dead_letter_ids: scope }}
          scope={`the ${scope.length.toLocaleString()} dead letter${scope.length === 1 ? '' : 's'} of this incident not yet redriven${scope.length >= 1000 ? ' (the oldest 1,000)' : ''}`}
          open
          onOpenChange={(open) => {
            if (open) return;
            setScope(null);
            void queryClient.invalidateQueries({ queryKey: rpcKeys.method('runtime.incident_logs'), predicate: (q) => (q.queryKey[3] as { incident_id?: string } | undefined)?.incident_id === incidentId });
            void queryClient.invalidateQueries({ queryKey: rpcKeys.method('runtime.incidents') });
          }}
        />
      )}
    </div>
  );
}

/** The incident's occurrences by subscriber, reason and event name, and one sample payload. */
function Occurrences({ data }: { data: IncidentLogs }) {
  const b = data.breakdown;
  const lists = b
    ? ([
        ['By subscriber', b.subscribers],
        ['By reason', b.reasons],
        ['By event', b.event_names],
      ] as const).filter(([, rows]) => rows.length > 0)
    : [];
  if (lists.length === 0 && !data.sample_payload) return null;
  return (
    <section className="incident-occurrences" aria-label="Occurrences" data-testid="incident-breakdown">
      <h3>Occurrences</h3>
      {lists.length > 0 && (
        <div className="incident-breakdowns">
          {lists.map(([title, rows]) => (
            <CountBreakdown key={title} title={title} rows={rows.map((r) => [r.value, r.count] as const)} className="incident-breakdown" />
          ))}
        </div>
      )}
      {data.sample_payload && (
        <details className="incident-payload" data-testid="incident-sample-payload">
          <summary>
            Sample payload: <span className="mono">{data.sample_payload.event_name}</span>
          </summary>
          <p className="small">
            Event{' '}
            <Link to={paths.event(data.sample_payload.event_id)} className="mono">
              {data.sample_payload.event_id}
            </Link>
          </p>
          <JsonTree value={data.sample_payload.payload} fileName={`${data.sample_payload.event_id}.json`} />
        </details>
      )}
    </section>
  );
}
