/**
 * Live updates: the server sends `runtime.changed {seq, kinds}` when stored records changed, on
 * whichever server; the console reads again the queries that show those kinds. At most one round
 * of reads per interval (the first at once, the rest merged into the next), so a burst of
 * traffic does not keep the console refetching. Each query's own polling stays as the fallback
 * for a lost socket.
 *
 * The event browser's loaded rows never move by themselves: its pages are only marked stale
 * (read again when the operator asks, or when they come back to it), except an empty list, which
 * has nothing to move; its live-tail count and an open event's details are read again.
 */
import { useEffect } from 'react';
import { useQueryClient, type Query, type QueryClient } from '@tanstack/react-query';
import type { ChangeKind, MethodName } from '@switchboard/contract';
import { heartbeat } from './heartbeat';
import { rpcKeys } from './query-client';

/** The reads each kind of change may make out of date. */
const AFFECTED: Record<ChangeKind, readonly MethodName[]> = {
  events: ['event.list', 'event.replays', 'run.get', 'run.tree', 'runtime.status'],
  // runtime.incident_logs: an incident's dead-letter recovery (redriven, delivered) follows a redrive.
  deliveries: ['event.list', 'run.get', 'run.tree', 'runtime.status', 'runtime.incidents', 'runtime.incident_logs', 'operation.list', 'operation.get'],
  runs: ['run.get', 'run.tree', 'runtime.status'],
  mailbox: ['mailbox.list', 'mailbox.get', 'mailbox.reject_reasons'],
  ingress: ['runtime.status', 'runtime.queue'],
  agents: ['agent.list', 'agent.get', 'conversation.list', 'conversation.get'],
  operations: ['operation.list', 'operation.get'],
  incidents: ['runtime.incidents', 'runtime.incident_logs', 'runtime.incident_activity'],
  // Tokens are not shown; a revoked token's session ends on its next request.
  tokens: [],
  // A reset also sends runtime.reset, which drops the cache (RuntimeNotices); this covers the gap.
  reset: [],
  // Rules, destinations and silences changed, or a notice was made or attempted.
  alerts: ['alert.rules', 'alert.destinations', 'alert.notices', 'alert.silences'],
};

/**
 * Least time between two rounds of reads. The first change of a quiet spell is read at once; under
 * steady traffic (a redrive, the demo) a console re-reads what it shows once a second, not four
 * times, which every open list and the server would pay for.
 */
export const LIVE_UPDATE_INTERVAL_MS = 1_000;

export function affectedMethods(kinds: Iterable<string>): Set<MethodName> {
  const out = new Set<MethodName>();
  for (const kind of kinds) for (const method of AFFECTED[kind as ChangeKind] ?? []) out.add(method);
  return out;
}

function isEmptyEventList(query: Query): boolean {
  const data = query.state.data as { pages?: { events?: unknown[] }[] } | undefined;
  return data?.pages?.every((p) => (p.events?.length ?? 0) === 0) ?? false;
}

/** Reads again what the kinds may have made out of date (see the module comment). */
export async function invalidateChanged(queryClient: QueryClient, kinds: Iterable<string>): Promise<void> {
  const kindList = [...kinds];
  // A refetch already under way is kept, not restarted: under steady traffic it would never finish.
  const keep = { cancelRefetch: false };
  if (kindList.includes('reset')) {
    await queryClient.invalidateQueries({ queryKey: rpcKeys.all, refetchType: 'active' }, keep);
    return;
  }
  const work: Promise<unknown>[] = [];
  for (const method of affectedMethods(kindList)) {
    if (method !== 'event.list') {
      work.push(queryClient.invalidateQueries({ queryKey: rpcKeys.method(method) }, keep));
      continue;
    }
    const pages = [...rpcKeys.method('event.list'), 'default'];
    work.push(
      queryClient.invalidateQueries({ queryKey: pages, refetchType: 'none' }),
      queryClient.refetchQueries({ queryKey: pages, type: 'active', predicate: isEmptyEventList }, keep),
      queryClient.invalidateQueries({ queryKey: rpcKeys.method('event.list'), predicate: (q) => q.queryKey[2] !== 'default' }, keep),
    );
  }
  await Promise.all(work);
}

/** Merges the kinds of notices that arrive within an interval into one call of `apply`. */
export class ChangeThrottle {
  private pending = new Set<string>();
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastAppliedAt = -Infinity;

  constructor(
    private readonly apply: (kinds: Set<string>) => void,
    private readonly intervalMs = LIVE_UPDATE_INTERVAL_MS,
    private readonly now: () => number = () => Date.now(),
  ) {}

  changed(kinds: readonly string[]): void {
    for (const kind of kinds) this.pending.add(kind);
    if (this.timer || this.pending.size === 0) return;
    const wait = this.lastAppliedAt + this.intervalMs - this.now();
    if (wait <= 0) this.flush();
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.pending.clear();
  }

  private flush(): void {
    this.timer = null;
    const kinds = this.pending;
    this.pending = new Set();
    this.lastAppliedAt = this.now();
    if (kinds.size > 0) this.apply(kinds);
  }
}

/** Keeps what the signed-in console shows current as the server announces changes. */
export function useLiveUpdates(): void {
  const queryClient = useQueryClient();
  useEffect(() => {
    const throttle = new ChangeThrottle((kinds) => void invalidateChanged(queryClient, kinds));
    const stop = heartbeat.onChanged((kinds) => throttle.changed(kinds));
    return () => {
      stop();
      throttle.stop();
    };
  }, [queryClient]);
}
