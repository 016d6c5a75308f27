/**
 * One stored event: identity and links, the payload as a text JSON tree, its deliveries and its
 * dead letters. Uses the loaded row when it is on screen, else reads the event by id.
 */
import { useEffect, useRef, useState } from 'react';
import type { DeadLetter, Delivery, StoredEvent } from '@switchboard/contract';
import { Link } from 'react-router';
import { useEvent, useReplays } from '../../api/events';
import { paths } from '../../paths';
import { ActorLabel } from '../../ui/ActorLabel';
import { CopyId } from '../../ui/CopyId';
import { DetailPanel } from '../../ui/DetailPanel';
import { EmptyState } from '../../ui/EmptyState';
import { ErrorState } from '../../ui/ErrorState';
import { JsonTree } from '../../ui/JsonTree';
import { LoadingState } from '../../ui/LoadingState';
import { RelativeTime, formatExact } from '../../ui/RelativeTime';
import { SourceLink } from '../../ui/SourceLink';
import { StatusBadge } from '../../ui/StatusBadge';
import { TraceId } from '../../ui/TraceId';
import { RecoveryDialog } from '../operations/RecoveryDialog';
import { GuardedButton } from '../../ui/GuardedButton';
import './EventDetail.css';

export function EventDetail({
  eventId,
  loaded,
  highlightDeadLetter,
  highlightDelivery,
  onClose,
}: {
  eventId: string;
  loaded: StoredEvent | undefined;
  highlightDeadLetter: string | undefined;
  /** A delivery opened by its id (go-to-id): marked and scrolled into view. */
  highlightDelivery?: string | undefined;
  onClose: () => void;
}) {
  const fetched = useEvent(loaded ? undefined : eventId);
  const event = loaded ?? fetched.data ?? undefined;

  return (
    <DetailPanel title={event ? event.event_name : 'Event'} label="Event details" onClose={onClose}>
      {event ? (
        <EventBody event={event} highlightDeadLetter={highlightDeadLetter} highlightDelivery={highlightDelivery} />
      ) : fetched.isPending ? (
        <LoadingState label="Loading event" />
      ) : fetched.isError && fetched.data === undefined ? (
        <ErrorState error={fetched.error} onRetry={() => void fetched.refetch()} />
      ) : (
        <EmptyState title="No event with this id">
          <p>
            <code>{eventId}</code> does not exist. It may have been removed by a runtime reset.
          </p>
        </EmptyState>
      )}
    </DetailPanel>
  );
}

function EventBody({
  event,
  highlightDeadLetter,
  highlightDelivery,
}: {
  event: StoredEvent;
  highlightDeadLetter: string | undefined;
  highlightDelivery: string | undefined;
}) {
  const [recovery, setRecovery] = useState<{ kind: 'redrive' | 'replay'; ids: string[] } | null>(null);
  return (
    <>
      <div className="detail-actions">
        <GuardedButton action="event.replay" className="btn btn-small" onClick={() => setRecovery({ kind: 'replay', ids: [event.event_id] })} data-testid="replay-event">
          Replay this event…
        </GuardedButton>
      </div>
      <dl className="kv">
        <dt>Event id</dt>
        <dd>
          <CopyId id={event.event_id} what="event id" />
        </dd>
        <dt>Created</dt>
        <dd>
          <RelativeTime iso={event.created_at} /> <span className="muted small">{formatExact(event.created_at)}</span>
        </dd>
        <dt>Source</dt>
        <dd>
          <SourceLink source={event.source} />
        </dd>
        <dt>Run</dt>
        <dd>{event.run_id ? <CopyId id={event.run_id} what="run id" to={paths.run(event.run_id)} /> : '—'}</dd>
        <dt>Entity</dt>
        <dd>{event.entity_id ? <Link to={paths.entity(event.entity_id)} className="mono">{event.entity_id}</Link> : '—'}</dd>
        {event.chain_depth !== undefined && (
          <>
            <dt>Chain depth</dt>
            <dd>{event.chain_depth}</dd>
          </>
        )}
        {event.replay_of_event_id && (
          <>
            <dt>Replay of</dt>
            <dd>
              <Link to={paths.event(event.replay_of_event_id)} className="mono" data-testid="replay-of">
                {event.replay_of_event_id}
              </Link>
            </dd>
          </>
        )}
        <ReplayedAs eventId={event.event_id} />
        {event.trace_id && (
          <>
            <dt>Trace</dt>
            <dd>
              <TraceId traceId={event.trace_id} />
            </dd>
          </>
        )}
        {event.parent_event_id && (
          <>
            <dt>Caused by</dt>
            <dd>
              <Link to={paths.event(event.parent_event_id)} className="mono">
                {event.parent_event_id}
              </Link>
            </dd>
          </>
        )}
      </dl>

      <h3>Payload</h3>
      <JsonTree value={event.payload} fileName={`${event.event_id}.payload.json`} />

      <h3>Dead letters ({event.dead_letters.length})</h3>
      {event.dead_letters.length === 0 ? (
        <p className="muted">No dead letters.</p>
      ) : (
        <ul className="card-list" aria-label="Dead letters">
          {event.dead_letters.map((dl) => (
            <DeadLetterCard
              key={dl.dead_letter_id}
              deadLetter={dl}
              highlighted={dl.dead_letter_id === highlightDeadLetter}
              newAttempt={dl.redrive ? event.deliveries.find((d) => d.delivery_id === dl.redrive!.delivery_id) : undefined}
              eventId={event.event_id}
              onRedrive={() => setRecovery({ kind: 'redrive', ids: [dl.dead_letter_id] })}
            />
          ))}
        </ul>
      )}

      <h3>Deliveries ({event.deliveries.length})</h3>
      {event.deliveries.length === 0 ? (
        <p className="muted">No subscribers: nothing was delivered.</p>
      ) : (
        <ul className="card-list" aria-label="Deliveries">
          {event.deliveries.map((d) => (
            <DeliveryCard key={d.delivery_id} delivery={d} eventId={event.event_id} highlighted={d.delivery_id === highlightDelivery} />
          ))}
        </ul>
      )}
      {recovery && (
        <RecoveryDialog
          kind={recovery.kind}
          selection={recovery.kind === 'redrive' ? { dead_letter_ids: recovery.ids } : { event_ids: recovery.ids }}
          scope={recovery.kind === 'redrive' ? `dead letter ${recovery.ids[0]}` : `event ${recovery.ids[0]}`}
          open
          onOpenChange={(open) => (open ? undefined : setRecovery(null))}
        />
      )}
    </>
  );
}

/** "Replayed as …": the events replays published of this one, each with its run. Nothing when none. */
function ReplayedAs({ eventId }: { eventId: string }) {
  const replays = useReplays(eventId);
  if (replays.isError) {
    return (
      <>
        <dt>Replayed as</dt>
        <dd className="muted small">could not be read</dd>
      </>
    );
  }
  const list = replays.data?.replays ?? [];
  if (list.length === 0) return null;
  return (
    <>
      <dt>Replayed as</dt>
      <dd>
        <ul className="replayed-as-list" data-testid="replayed-as">
          {list.map((r) => (
            <li key={r.event_id}>
              <Link to={paths.event(r.event_id)} className="mono" data-testid="replayed-as-link">
                {r.event_id}
              </Link>
              {r.run_id && (
                <>
                  {' '}
                  <span className="muted small">in run</span>{' '}
                  <Link to={paths.run(r.run_id)} className="mono small">
                    {r.run_id}
                  </Link>
                </>
              )}{' '}
              <span className="muted small">
                <RelativeTime iso={r.created_at} />
              </span>
            </li>
          ))}
        </ul>
      </dd>
    </>
  );
}

function DeadLetterCard({
  deadLetter: dl,
  highlighted,
  newAttempt,
  eventId,
  onRedrive,
}: {
  deadLetter: DeadLetter;
  highlighted: boolean;
  newAttempt: Delivery | undefined;
  eventId: string;
  onRedrive: () => void;
}) {
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (highlighted) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [highlighted]);
  return (
    <li ref={ref} className={`card${highlighted ? ' is-highlighted' : ''}`} data-testid="dead-letter" aria-current={highlighted ? 'true' : undefined}>
      <div>
        <StatusBadge value={dl.failure_type} tone="bad" /> <CopyId id={dl.dead_letter_id} what="dead letter id" />
      </div>
      <dl className="kv">
        <dt>Failure type</dt>
        <dd>{dl.failure_type}</dd>
        <dt>Retries</dt>
        <dd>{dl.retry_count}</dd>
        <dt>Chain depth</dt>
        <dd>{dl.chain_depth}</dd>
        <dt>Handler node</dt>
        <dd className="mono">{dl.handler_node ?? '—'}</dd>
        {dl.subscriber_id && (
          <>
            <dt>Subscriber</dt>
            <dd>
              <Link to={paths.subscriber(dl.subscriber_id)} className="mono">
                {dl.subscriber_id}
              </Link>
            </dd>
          </>
        )}
        {dl.reason_code && (
          <>
            <dt>Reason code</dt>
            <dd className="mono">{dl.reason_code}</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>
          <RelativeTime iso={dl.created_at} />
        </dd>
      </dl>
      {dl.error_message && <p className="error-text">{dl.error_message}</p>}
      {dl.redrive_of_dead_letter_id && (
        <p className="small" data-testid="redrive-of-dead-letter">
          The redrive of{' '}
          <Link to={paths.deadLetter(eventId, dl.redrive_of_dead_letter_id)} className="mono">
            {dl.redrive_of_dead_letter_id}
          </Link>{' '}
          failed again.
        </p>
      )}
      {dl.redrive ? (
        <p className="redrive-note" data-testid="redrive-history">
          Redriven <RelativeTime iso={dl.redrive.redriven_at} /> by <ActorLabel id={dl.redrive.actor_token_id} /> in operation{' '}
          <CopyId id={dl.redrive.operation_id} what="operation id" to={paths.operation(dl.redrive.operation_id)} />
          ; new attempt <a href={`#delivery-${dl.redrive.delivery_id}`} className="mono">{dl.redrive.delivery_id}</a> {newAttempt && <StatusBadge value={newAttempt.status} />}
        </p>
      ) : (
        <GuardedButton action="event.redrive" className="btn btn-small" onClick={onRedrive} data-testid="redrive-dead-letter">
          Redrive…
        </GuardedButton>
      )}
    </li>
  );
}

function DeliveryCard({ delivery: d, eventId, highlighted }: { delivery: Delivery; eventId: string; highlighted: boolean }) {
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (highlighted) ref.current?.scrollIntoView({ block: 'nearest' });
  }, [highlighted]);
  return (
    <li
      ref={ref}
      className={`card${highlighted ? ' is-highlighted' : ''}`}
      data-testid="delivery"
      id={`delivery-${d.delivery_id}`}
      aria-current={highlighted ? 'true' : undefined}
    >
      <div>
        <StatusBadge value={d.status} /> <span className="muted small">{d.subscriber_type}</span>{' '}
        <Link to={d.subscriber_type === 'agent' ? paths.agent(d.subscriber_id) : paths.subscriber(d.subscriber_id)} className="mono">
          {d.subscriber_id}
        </Link>
      </div>
      <dl className="kv">
        <dt>Delivery id</dt>
        <dd>
          <CopyId id={d.delivery_id} what="delivery id" />
        </dd>
        {d.redrive_of_dead_letter_id && (
          <>
            <dt>Redrive of</dt>
            <dd>
              <Link to={paths.deadLetter(eventId, d.redrive_of_dead_letter_id)} className="mono" data-testid="redrive-of">
                {d.redrive_of_dead_letter_id}
              </Link>
            </dd>
          </>
        )}
        {d.attempts !== undefined && (
          <>
            <dt>Attempts</dt>
            <dd>{d.attempts}</dd>
          </>
        )}
        {d.reason_code && (
          <>
            <dt>Reason code</dt>
            <dd className="mono">{d.reason_code}</dd>
          </>
        )}
        {d.session_id && (
          <>
            <dt>Session</dt>
            <dd>
              <CopyId id={d.session_id} what="session id" to={paths.session(d.session_id)} />
            </dd>
          </>
        )}
      </dl>
      {d.last_error && <p className="error-text">Last error: {d.last_error}</p>}
    </li>
  );
}
