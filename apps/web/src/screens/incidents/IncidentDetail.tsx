/** One incident: its summary and sample log records, each linking to the event, run and dead letter it names. */
import type { Incident, LogRecord } from '@switchboard/contract';
import { Link } from 'react-router';
import { useEvent } from '../../api/events';
import { useIncidentLogs } from '../../api/incidents';
import { paths } from '../../paths';
import { DetailPanel } from '../../ui/DetailPanel';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { RelativeTime } from '../../ui/RelativeTime';
import { Sparkline, sparklineLabel } from '../../ui/Sparkline';
import { StatusBadge } from '../../ui/StatusBadge';
import { IncidentStatePanel } from './IncidentStatePanel';

export function IncidentDetail({
  incidentId,
  incident,
  windowHours,
  onClose,
}: {
  incidentId: string;
  incident: Incident | undefined;
  windowHours: number;
  onClose: () => void;
}) {
  const logs = useIncidentLogs(incidentId, windowHours);
  const title = incident ? `${incident.component}${incident.error_code ? ` · ${incident.error_code}` : ''}` : 'Incident';
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
      <IncidentStatePanel incidentId={incidentId} incident={incident} />
      {logs.data?.dead_letters && <DeadLetterRecovery {...logs.data.dead_letters} />}
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
                <Link to={paths.delivery(log.event_id)} className="mono">
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

/** Whether the incident's dead letters were sent again, and got through. */
function DeadLetterRecovery({ total, redriven, delivered }: { total: number; redriven: number; delivered: number }) {
  const all = delivered === total;
  return (
    <p className={`callout ${all ? 'callout-ok' : redriven > 0 ? 'callout-info' : ''}`} data-testid="incident-recovery">
      {all
        ? `All ${total.toLocaleString()} dead letter${total === 1 ? '' : 's'} of this incident were redriven and delivered.`
        : `${total.toLocaleString()} dead letter${total === 1 ? '' : 's'}: ${redriven.toLocaleString()} redriven, ${delivered.toLocaleString()} of those delivered.`}
    </p>
  );
}
