/**
 * The causal tree of one run: each event with its deliveries; under a delivery, what its
 * subscriber emitted, the agent turns it took and its dead letters; under an event, the mailbox
 * items it opened and what their approval emitted. Times are offsets from the run's start;
 * failures are marked in words and colour. Every id links to its page.
 */
import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { Result } from '@switchboard/contract';
import { rpc } from '../../api/client';
import { rpcKeys } from '../../api/query-client';
import { paths } from '../../paths';
import { ErrorState } from '../../ui/ErrorState';
import { LoadingState } from '../../ui/LoadingState';
import { StatusBadge } from '../../ui/StatusBadge';
import './RunTree.css';

type Tree = Result<'run.tree'>;
type TreeEvent = Tree['events'][number];
type TreeDelivery = Tree['deliveries'][number];

function useRunTree(runId: string) {
  return useQuery({
    queryKey: rpcKeys.query('run.tree', { run_id: runId }),
    queryFn: ({ signal }) => rpc('run.tree', { run_id: runId }, signal),
    staleTime: 0,
  });
}

function offset(fromIso: string, toIso: string): string {
  const ms = Date.parse(toIso) - Date.parse(fromIso);
  return ms < 1000 ? `+${ms} ms` : `+${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** Lookups from the flat lists the server returns. */
function indexTree(t: Tree) {
  const group = <T, K>(items: T[], key: (x: T) => K) => {
    const m = new Map<K, T[]>();
    for (const x of items) m.set(key(x), [...(m.get(key(x)) ?? []), x]);
    return m;
  };
  const ids = new Set(t.events.map((e) => e.event_id));
  return {
    roots: t.events.filter((e) => !e.parent_event_id || !ids.has(e.parent_event_id)),
    children: group(
      t.events.filter((e) => e.parent_event_id && ids.has(e.parent_event_id)),
      (e) => `${e.parent_event_id}|${e.source}`,
    ),
    deliveries: group(t.deliveries, (d) => d.event_id),
    deadLetters: group(t.dead_letters, (l) => l.delivery_id ?? ''),
    turns: group(t.turns, (x) => x.trigger_event_id),
    mailbox: group(t.mailbox_items, (m) => m.source_event_id ?? ''),
    replays: group(t.replays ?? [], (r) => r.replay_of_event_id),
  };
}

export function RunTree({ runId }: { runId: string }) {
  const tree = useRunTree(runId);
  const index = useMemo(() => (tree.data ? indexTree(tree.data) : undefined), [tree.data]);
  if (tree.isPending) return <LoadingState label="Loading the run tree" />;
  if (tree.isError && tree.data === undefined) return <ErrorState error={tree.error} onRetry={() => void tree.refetch()} />;
  const start = tree.data.run.created_at;
  return (
    <div className="run-tree" data-testid="run-tree">
      {tree.data.truncated && <p className="callout">This run has more than 1,000 events; the tree shows the first 1,000.</p>}
      <ul className="tree-level" aria-label={`Causal tree of run ${runId}`}>
        {index!.roots.map((e) => (
          <EventNode key={e.event_id} event={e} index={index!} start={start} />
        ))}
      </ul>
    </div>
  );
}

function EventNode({ event: e, index, start }: { event: TreeEvent; index: ReturnType<typeof indexTree>; start: string }) {
  const deliveries = index.deliveries.get(e.event_id) ?? [];
  const items = index.mailbox.get(e.event_id) ?? [];
  return (
    <li className="tree-node tree-event" data-testid="tree-event" data-event={e.event_name}>
      <div className="tree-line">
        <span className="tree-kind">event</span>
        <Link to={paths.event(e.event_id)} className="event-name">
          {e.event_name}
        </Link>
        <span className="muted small">{offset(start, e.created_at)}</span>
        <span className="muted small mono">{e.event_id}</span>
        {e.replay_of_event_id && (
          <span className="small">
            replay of{' '}
            <Link to={paths.event(e.replay_of_event_id)} className="mono">
              {e.replay_of_event_id}
            </Link>
          </span>
        )}
        {(index.replays.get(e.event_id) ?? []).map((r) => (
          <span key={r.event_id} className="small" data-testid="tree-replayed-as">
            replayed as{' '}
            <Link to={paths.event(r.event_id)} className="mono">
              {r.event_id}
            </Link>
            {r.run_id && (
              <>
                {' '}
                in{' '}
                <Link to={paths.run(r.run_id)} className="mono">
                  {r.run_id}
                </Link>
              </>
            )}
          </span>
        ))}
      </div>
      {(deliveries.length > 0 || items.length > 0) && (
        <ul className="tree-level">
          {deliveries.map((d) => (
            <DeliveryNode key={d.delivery_id} event={e} delivery={d} index={index} start={start} />
          ))}
          {items.map((m) => (
            <li key={m.mailbox_id} className="tree-node tree-mailbox" data-testid="tree-mailbox">
              <div className="tree-line">
                <span className="tree-kind">mailbox</span>
                <Link to={paths.mailbox(m.mailbox_id)} className="mono">
                  {m.type}
                </Link>
                <StatusBadge value={m.status} tone={m.status === 'rejected' ? 'bad' : m.status === 'approved' ? 'ok' : 'warn'} />
                <span className="muted small">{offset(start, m.created_at)}</span>
                <span className="muted small mono">{m.mailbox_id}</span>
              </div>
              {(index.children.get(`${e.event_id}|mailbox:${m.mailbox_id}`) ?? []).length > 0 && (
                <ul className="tree-level">
                  {index.children.get(`${e.event_id}|mailbox:${m.mailbox_id}`)!.map((c) => (
                    <EventNode key={c.event_id} event={c} index={index} start={start} />
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

function DeliveryNode({ event: e, delivery: d, index, start }: { event: TreeEvent; delivery: TreeDelivery; index: ReturnType<typeof indexTree>; start: string }) {
  const emitted = index.children.get(`${e.event_id}|${d.subscriber_type}:${d.subscriber_id}`) ?? [];
  const turns = d.subscriber_type === 'agent' ? (index.turns.get(e.event_id) ?? []).filter((t) => t.agent_id === d.subscriber_id) : [];
  const dead = index.deadLetters.get(d.delivery_id) ?? [];
  const failed = d.status === 'failed';
  return (
    <li className={`tree-node tree-delivery${failed ? ' tree-failed' : ''}`} data-testid="tree-delivery" data-status={d.status}>
      <div className="tree-line">
        <span className="tree-kind">{d.subscriber_type}</span>
        <Link to={d.subscriber_type === 'agent' ? paths.agent(d.subscriber_id) : paths.subscriber(d.subscriber_id)} className="mono">
          {d.subscriber_id}
        </Link>
        <StatusBadge value={d.status} />
        {d.attempts > 1 && <span className="small">{d.attempts} attempts</span>}
        {d.reason_code && (
          <span className="small">
            {d.status === 'delivered' ? 'after ' : ''}
            <code>{d.reason_code}</code>
          </span>
        )}
        <span className="muted small">took {offset(e.created_at, d.updated_at).slice(1)}</span>
        {d.redrive_of_dead_letter_id && <span className="small">redrive</span>}
      </div>
      {failed && d.last_error && <p className="error-text small">{d.last_error}</p>}
      {(emitted.length > 0 || turns.length > 0 || dead.length > 0) && (
        <ul className="tree-level">
          {turns.map((t) => (
            <li key={t.turn_id} className={`tree-node tree-turn${t.parse_ok ? '' : ' tree-failed'}`} data-testid="tree-turn">
              <div className="tree-line">
                <span className="tree-kind">turn</span>
                <Link to={paths.turn(t.session_id, t.turn_id)} className="mono">
                  {t.turn_id}
                </Link>
                <StatusBadge value={t.parse_ok ? 'parsed' : 'parse failed'} tone={t.parse_ok ? 'ok' : 'bad'} />
                <span className="muted small">{t.latency_ms} ms</span>
              </div>
            </li>
          ))}
          {dead.map((l) => (
            <li key={l.dead_letter_id} className="tree-node tree-failed" data-testid="tree-dead-letter">
              <div className="tree-line">
                <span className="tree-kind">dead letter</span>
                <Link to={paths.deadLetter(e.event_id, l.dead_letter_id)} className="mono">
                  {l.dead_letter_id}
                </Link>
                {l.reason_code && <code className="small">{l.reason_code}</code>}
              </div>
            </li>
          ))}
          {emitted.map((c) => (
            <EventNode key={c.event_id} event={c} index={index} start={start} />
          ))}
        </ul>
      )}
    </li>
  );
}
