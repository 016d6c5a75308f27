/**
 * Prometheus metrics of one server process, with prom-client. The runtime and the store report
 * through their observer interfaces (no prom-client there); the RPC layer through RpcCallObserver.
 *
 * Two kinds of series, see README.md "Metrics":
 * - per server: counters, histograms and this process's gauges, labelled `server` (every series of the
 *   registry carries it, process metrics included). Sum them over servers.
 * - cluster-wide: gauges read from the database at scrape time (queue depth, pending mailbox items,
 *   open incidents, ...). Every server reads the same rows, so only one server exports samples: the
 *   oldest live server (the first row of the servers table, as containers supervision picks it). The
 *   others leave them out of their scrape. Scraping every server counts each once.
 *
 * Per call the hot paths do a map lookup, a counter increment and a histogram observe (see
 * hot-path-series.ts); series are found by their label values, which come from small fixed sets
 * (method names, error codes, the bundle's event names, subscriber ids and mailbox types).
 */
import { Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { DeliveryOutcome, MailboxDecision, OperationDropReason, PublishOutcome, Runtime, RuntimeObserver } from '@switchboard/runtime';
import { LEVEL_RANK } from '@switchboard/runtime';
import type { Store, StoreObserver, TransactionKind, TransactionOutcome } from '@switchboard/store';
import type { Logger } from '../logger';
import { HotCounter, HotHistogram, type CounterSeries, type HistogramSeries } from './hot-path-series';

/** What the method executor reports of each JSON-RPC call. */
export interface RpcCallObserver {
  /** `method` is a known method's name or "unknown"; `outcome` is "ok" or the error code. */
  onCall(method: string, transport: 'http' | 'ws', outcome: string, seconds: number): void;
}

/** Where the scrape-time gauges come from, known once the server has started. */
export interface MetricsSources {
  store: Store;
  runtime: Runtime;
  sockets: { connectionCount(): number; subscriptionCount(): number };
  version: string;
}

/** Incidents count as open when they occurred in this window: the console's default (24 hours). */
const INCIDENT_WINDOW_MS = 24 * 60 * 60 * 1000;
const INCIDENT_LEVELS = (Object.entries(LEVEL_RANK) as [string, number][]).filter(([, rank]) => rank >= LEVEL_RANK.warn);

const RPC_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const HANDLER_SECONDS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const TRANSACTION_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
const GROUP_MEMBERS = [1, 2, 4, 8, 16, 32, 64];
const DECISION_SECONDS = [10, 60, 300, 900, 1800, 3600, 7200, 14400, 43200, 86400, 172800, 604800];

export class Metrics implements RuntimeObserver, StoreObserver, RpcCallObserver {
  /** Per-server series. */
  readonly registry = new Registry();
  /** Cluster-wide gauges, part of the scrape only on the reporting server. */
  private readonly clusterRegistry = new Registry();
  private sources: MetricsSources | undefined;
  private refreshing: Promise<boolean> | undefined;

  private readonly rpcCalls;
  private readonly callSeries = new Map<string, { seconds: HistogramSeries; calls: Record<'http' | 'ws', Map<string, CounterSeries>> }>();
  private readonly rpcSeconds;
  private readonly publishes;
  private readonly deliveries;
  private readonly deadLetters;
  private readonly handlerSeconds;
  private readonly decisionSeconds;
  private readonly transactions;
  private readonly transactionSeconds;
  private readonly groupMembers;
  private readonly containerSweeps;
  private readonly operationsDropped;

  private readonly deliveriesOpen: Gauge;
  private readonly oldestPendingAge: Gauge;
  private readonly ingressQueued: Gauge;
  private readonly mailboxPending: Gauge;
  private readonly incidentsOpen: Gauge;
  private readonly operationsRunning: Gauge;
  private readonly serversLive: Gauge;
  private readonly reportsCluster: Gauge;
  private readonly serverUp: Gauge;

  constructor(private readonly logger: Logger) {
    const registers = [this.registry];
    this.rpcCalls = new HotCounter(this.registry, { name: 'switchboard_rpc_requests_total', help: 'JSON-RPC calls answered, by method, transport and outcome (ok or the error code)', labelNames: ['method', 'transport', 'outcome'] });
    this.rpcSeconds = new HotHistogram(this.registry, { name: 'switchboard_rpc_request_duration_seconds', help: 'Time to answer a JSON-RPC call, by method', labelNames: ['method'], buckets: RPC_SECONDS });
    this.publishes = new HotCounter(this.registry, { name: 'switchboard_publishes_total', help: 'Publishes committed, by event and outcome (running, or queued while ingress is paused)', labelNames: ['event', 'outcome'] });
    this.deliveries = new HotCounter(this.registry, { name: 'switchboard_deliveries_total', help: 'Delivery attempts finished, by subscriber and outcome (delivered, retry, dead_letter)', labelNames: ['subscriber', 'outcome'] });
    this.deadLetters = new HotCounter(this.registry, { name: 'switchboard_dead_letters_total', help: 'Deliveries dead-lettered (no retry left), by subscriber', labelNames: ['subscriber'] });
    this.handlerSeconds = new HotHistogram(this.registry, { name: 'switchboard_handler_duration_seconds', help: 'Time a subscriber handler took to answer, fail or time out', labelNames: ['subscriber'], buckets: HANDLER_SECONDS });
    this.decisionSeconds = new HotHistogram(this.registry, {
      name: 'switchboard_mailbox_time_to_decision_seconds',
      help: 'Time from a mailbox item being created to its decision, by type and outcome (approved, rejected)',
      labelNames: ['type', 'outcome'],
      buckets: DECISION_SECONDS,
    });
    this.transactions = new HotCounter(this.registry, {
      name: 'switchboard_store_transactions_total',
      help: 'Store transactions ended, by kind (single, or a group commit of several writes) and outcome (commit, rollback)',
      labelNames: ['kind', 'outcome'],
    });
    this.transactionSeconds = new HotHistogram(this.registry, { name: 'switchboard_store_transaction_duration_seconds', help: 'Time a store transaction took, begin to commit or rollback, by kind', labelNames: ['kind'], buckets: TRANSACTION_SECONDS });
    this.containerSweeps = new HotCounter(this.registry, {
      name: 'switchboard_container_sweeps_total',
      help: 'Passes of the container supervisor over managed entities, each starting a container for those without one (at boot, on taking over, every few heartbeats)',
      labelNames: [],
    }).of();
    this.operationsDropped = new HotCounter(this.registry, {
      name: 'switchboard_operations_dropped_total',
      help: 'Redrive and replay operations this server stopped sending because their fence refused it, by reason (stopped: cancelled, paused or ended elsewhere; taken: another server holds the lease)',
      labelNames: ['reason'],
    });
    this.groupMembers = new HotHistogram(this.registry, { name: 'switchboard_store_group_commit_writes', help: 'Callers whose writes one group commit committed together', labelNames: [], buckets: GROUP_MEMBERS }).of();

    // This server's own state, read from memory when scraped (prom-client calls collect each time).
    const sourcesNow = () => this.sources;
    const fromSources = (read: (s: MetricsSources) => number) =>
      function collect(this: Gauge) {
        const sources = sourcesNow();
        if (sources) this.set(read(sources));
      };
    new Gauge({ name: 'switchboard_websocket_connections', help: 'Open WebSocket connections to this server', registers, collect: fromSources((s) => s.sockets.connectionCount()) });
    new Gauge({ name: 'switchboard_heartbeat_subscribers', help: 'Heartbeat subscriptions on this server', registers, collect: fromSources((s) => s.sockets.subscriptionCount()) });
    new Gauge({ name: 'switchboard_handlers_in_flight', help: 'Deliveries this server is running or committing', registers, collect: fromSources((s) => s.runtime.dispatcher.inFlightCount) });
    this.serverUp = new Gauge({ name: 'switchboard_server_up', help: 'Always 1 on a running server; its labels name the server version', labelNames: ['version'], registers });
    this.reportsCluster = new Gauge({ name: 'switchboard_server_reports_cluster', help: '1 on the server that exports the cluster-wide gauges (the oldest live server), else 0', registers });

    const cluster = [this.clusterRegistry];
    this.deliveriesOpen = new Gauge({ name: 'switchboard_deliveries_open', help: 'Cluster-wide: deliveries not finished, by status (pending, including retries in backoff; in_progress)', labelNames: ['status'], registers: cluster });
    this.oldestPendingAge = new Gauge({ name: 'switchboard_delivery_oldest_pending_age_seconds', help: 'Cluster-wide: how long the oldest due pending delivery has waited (0 when none is due)', registers: cluster });
    this.ingressQueued = new Gauge({ name: 'switchboard_ingress_queued_publishes', help: 'Cluster-wide: publishes queued while ingress is paused', registers: cluster });
    this.mailboxPending = new Gauge({ name: 'switchboard_mailbox_pending_items', help: 'Cluster-wide: mailbox items waiting for a decision, by type', labelNames: ['type'], registers: cluster });
    this.incidentsOpen = new Gauge({ name: 'switchboard_incidents_open', help: 'Cluster-wide: incidents open (or regressed) that occurred in the last 24 hours, by highest level', labelNames: ['level'], registers: cluster });
    this.operationsRunning = new Gauge({ name: 'switchboard_operations_running', help: 'Cluster-wide: redrive and replay operations running', registers: cluster });
    this.serversLive = new Gauge({ name: 'switchboard_servers_live', help: 'Cluster-wide: servers whose heartbeat is current', registers: cluster });

    collectDefaultMetrics({ register: this.registry });
    // Gauges whose names end in _total break the naming rules (promtool check metrics refuses them);
    // their by-type siblings (nodejs_active_handles{type}, ...) hold the same counts.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) this.registry.removeSingleMetric(name);
  }

  /** Starts reading gauges from the running server and labels every series with its server id. */
  attach(sources: MetricsSources): void {
    this.sources = sources;
    this.registry.setDefaultLabels({ server: sources.runtime.serverId });
    this.clusterRegistry.setDefaultLabels({ server: sources.runtime.serverId });
    this.serverUp.set({ version: sources.version }, 1);
  }

  /** The exposition text: per-server series always, cluster-wide gauges on the reporting server only. */
  async scrape(): Promise<string> {
    // Scrapes arriving together share one read of the database.
    this.refreshing ??= this.refreshClusterGauges().finally(() => {
      this.refreshing = undefined;
    });
    const reports = await this.refreshing;
    const own = await this.registry.metrics();
    return reports ? own + (await this.clusterRegistry.metrics()) : own;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Reads the cluster gauges when this server reports them; whether it does. */
  private async refreshClusterGauges(): Promise<boolean> {
    const sources = this.sources;
    if (!sources) return false;
    const { store, runtime } = sources;
    try {
      const live = await runtime.servers.liveServers();
      const reports = live[0]?.self === true;
      this.reportsCluster.set(reports ? 1 : 0);
      if (!reports) return false;
      const now = store.clock.now();
      const reading = await store.clusterGauges.read(now.toISOString());
      const incidents = await runtime.incidents.openCountsByLevel({ windowStart: new Date(now.getTime() - INCIDENT_WINDOW_MS).toISOString(), windowEnd: new Date(now.getTime() + 1).toISOString() });
      // Mailbox types no longer pending leave their series.
      this.mailboxPending.reset();
      this.serversLive.set(live.length);
      this.deliveriesOpen.set({ status: 'pending' }, reading.deliveriesPending);
      this.deliveriesOpen.set({ status: 'in_progress' }, reading.deliveriesInProgress);
      // Due times are on the store's clock (the database's on PostgreSQL), so the age is too.
      this.oldestPendingAge.set(reading.oldestDueAt ? Math.max(0, now.getTime() - Date.parse(reading.oldestDueAt)) / 1000 : 0);
      this.ingressQueued.set(reading.ingressQueued);
      for (const type of knownMailboxTypes(runtime)) this.mailboxPending.set({ type }, 0);
      for (const [type, n] of reading.mailboxPendingByType) this.mailboxPending.set({ type }, n);
      for (const [level, rank] of INCIDENT_LEVELS) this.incidentsOpen.set({ level }, incidents.get(rank) ?? 0);
      this.operationsRunning.set(reading.operationsRunning);
      return true;
    } catch (error) {
      // The per-server series still answer (they matter most while the database is away).
      this.reportsCluster.set(0);
      this.logger.warn('metrics: cluster gauges not read', { error: error instanceof Error ? error.message : String(error) });
      return false;
    }
  }

  onCall(method: string, transport: 'http' | 'ws', outcome: string, seconds: number): void {
    // Every call passes here: nested maps find its series without building a key string.
    let series = this.callSeries.get(method);
    if (!series) {
      series = { seconds: this.rpcSeconds.of(method), calls: { http: new Map(), ws: new Map() } };
      this.callSeries.set(method, series);
    }
    series.seconds.observe(seconds);
    const byOutcome = series.calls[transport];
    let calls = byOutcome.get(outcome);
    if (!calls) {
      calls = this.rpcCalls.of(method, transport, outcome);
      byOutcome.set(outcome, calls);
    }
    calls.inc();
  }

  onPublish(eventName: string, outcome: PublishOutcome): void {
    this.publishes.of(eventName, outcome).inc();
  }

  onDeliveryOutcome(subscriberId: string, outcome: DeliveryOutcome): void {
    this.deliveries.of(subscriberId, outcome).inc();
    if (outcome === 'dead_letter') this.deadLetters.of(subscriberId).inc();
  }

  onHandlerDuration(subscriberId: string, seconds: number): void {
    this.handlerSeconds.of(subscriberId).observe(seconds);
  }

  onMailboxDecision(mailboxType: string, decision: MailboxDecision, seconds: number): void {
    this.decisionSeconds.of(mailboxType, decision).observe(seconds);
  }

  onContainerSweep(): void {
    this.containerSweeps.inc();
  }

  onOperationDropped(reason: OperationDropReason): void {
    this.operationsDropped.of(reason).inc();
  }

  onTransaction(kind: TransactionKind, outcome: TransactionOutcome, seconds: number): void {
    this.transactions.of(kind, outcome).inc();
    this.transactionSeconds.of(kind).observe(seconds);
  }

  onGroupCommit(members: number): void {
    this.groupMembers.observe(members);
  }
}

/** Mailbox types the bundle declares or its approval gates create: shown with 0 when none is pending. */
function knownMailboxTypes(runtime: Runtime): Set<string> {
  const def = runtime.bundle.definition;
  const types = new Set(Object.keys(def.mailbox_types));
  for (const node of Object.values(def.nodes)) if (node.kind === 'approval_gate') types.add(node.mailbox_type);
  return types;
}
