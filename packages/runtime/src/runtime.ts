/**
 * The embedded runtime: owns the boot bundle, ingress, the dispatcher and the services handlers
 * use. It knows nothing of HTTP or JSON-RPC; the control API calls it. Every record a read method
 * returns was produced here by processing events.
 */
import { fileURLToPath } from 'node:url';
import { RpcError, type Result } from '@switchboard/contract';
import type { Clock, Store } from '@switchboard/store';
import { systemClock } from '@switchboard/store';
import { AgentHandler } from './agents/agent-handler';
import { loadBundle, type LoadedBundle } from './bundle/load';
import { Dispatcher, subscriberKey, type DispatcherOptions } from './dispatcher';
import { waitForIdle } from './dispatch-idle';
import type { OnEffectCommit } from './effect-commit';
import type { RuntimeServices, SubscriberHandler } from './handler';
import { Ingress, type IngressState, type PublishInput, type PublishResult } from './ingress';
import { MailboxService, type ApproveInput, type DecisionOutcome, type RejectInput } from './mailbox';
import { ApprovalGateHandler } from './nodes/approval-gate';
import { EntityUpdateHandler } from './nodes/entity-update';
import { ToolCallHandler } from './nodes/tool-call';
import { TransformHandler } from './nodes/transform';
import { createModelProvider, type ModelProviderConfig } from './providers/index';
import type { ModelProvider } from './providers/provider';
import { RuntimeLog } from './runtime-log';
import { ToolRegistry } from './tool-servers/registry';
import type { ContainerManager } from './containers/container-manager';
import { EntityContainers } from './containers/entity-containers';
import { LocalProcessManager } from './containers/local-process-manager';
import { ResetCoordinator, type ResetPreviews, type ResetRequest, type ResetResult } from './reset/reset-coordinator';
import { RESET_LOCK_KEY, ResetLock } from './reset/reset-lock';
import { OperationRunner } from './operations/operation-runner';
import { Recovery } from './operations/recovery';
import type { SimulatedMcpServer } from './tool-servers/simulated-mcp';
import { NodeRegistry, type NodeRegistryOptions } from './membership/node-registry';
import { noopRuntimeObserver, type RuntimeObserver } from './observer';
import { Alerts, type AlertsOptions } from './alerts/alerts';

export const DEFAULT_BUNDLE_PATH = fileURLToPath(new URL('../bundles/support-desk.yaml', import.meta.url));

export type { IngressState };

export interface RuntimeOptions {
  store: Store;
  bundlePath?: string;
  clock?: Clock;
  /** A provider instance, or the configuration selecting one; scripted by default. */
  modelProvider?: ModelProvider | ModelProviderConfig;
  dispatcher?: DispatcherOptions;
  /** Start the dispatcher loop at boot (default true). Tests turn it off and call runUntilIdle (testing/run-until-idle.ts). */
  autoStart?: boolean;
  /** Container manager for entities of managed_container types; local child processes by default. */
  containers?: ContainerManager;
  /** Bound on reset quiescence waiting for running handlers (default 10 s). */
  resetDrainTimeoutMs?: number;
  /** This process as a node of the store: heartbeat, when a silent node counts as dead, version. */
  node?: NodeRegistryOptions;
  /** Told of publishes, delivery outcomes and decisions (the server's metrics); nothing by default. */
  observer?: RuntimeObserver;
  /** Alert notices: how they are sent (attempts, backoff, lease), how often conditions are evaluated, where links point. */
  alerts?: AlertsOptions;
}

export type RuntimeStatus = Result<'runtime.status'>;

/** What every open console hears after a reset was applied. */
export interface AppliedReset {
  reset_id: string;
  status: ResetResult['status'];
  finished_at: string;
  reason?: string;
  actor_token_id?: string;
}

function describeToolServer(server: SimulatedMcpServer) {
  return {
    name: server.name,
    ...(server.definition.description ? { description: server.definition.description } : {}),
    tools: server.definition.tools,
    failure_rate: server.definition.failure_rate,
    timeout_rate: server.definition.timeout_rate,
    faults: server.faultsOn ? ('on' as const) : ('off' as const),
  };
}

/** A due delivery waiting longer than this marks the dispatcher degraded. */
const DISPATCH_LAG_DEGRADED_MS = 30_000;

function buildHandlers(bundle: LoadedBundle): Map<string, SubscriberHandler> {
  const handlers = new Map<string, SubscriberHandler>();
  for (const [id, node] of Object.entries(bundle.definition.nodes)) {
    const handler =
      node.kind === 'transform'
        ? new TransformHandler(node)
        : node.kind === 'entity_update'
          ? new EntityUpdateHandler(id, node)
          : node.kind === 'approval_gate'
            ? new ApprovalGateHandler(id, node)
            : new ToolCallHandler(id, node);
    handlers.set(subscriberKey('node', id), handler);
  }
  for (const agent of bundle.definition.agents) handlers.set(subscriberKey('agent', agent.agent_id), new AgentHandler(agent));
  return handlers;
}

export class Runtime {
  readonly startedAt: Date;
  readonly log: RuntimeLog;
  readonly dispatcher: Dispatcher;
  readonly ingress: Ingress;
  readonly mailbox: MailboxService;
  readonly services: RuntimeServices;
  readonly containers: ContainerManager;
  /** Held by a runtime reset (runtime.nuke) from its plan until its last step. */
  readonly resetLock: ResetLock;
  /** This process's row among the store's nodes, and the takeover of dead ones. */
  readonly nodes: NodeRegistry;
  private readonly resetListeners = new Set<(reset: AppliedReset) => void>();
  /** Redrive and replay: estimates, operations and their runner. */
  readonly recovery: Recovery;
  private readonly operationRunner: OperationRunner;
  private readonly entityContainers: EntityContainers;
  /** Alert rules, destinations, the notice outbox and its sender. */
  readonly alerts: Alerts;
  private resetDrainTimeoutMs: number | undefined;

  private constructor(
    readonly store: Store,
    readonly bundle: LoadedBundle,
    readonly clock: Clock,
    provider: ModelProvider,
    dispatcherOptions: DispatcherOptions | undefined,
    containers?: ContainerManager,
    nodeOptions?: NodeRegistryOptions,
    observer: RuntimeObserver = noopRuntimeObserver,
    alertOptions?: AlertsOptions,
  ) {
    this.startedAt = clock.now();
    this.log = new RuntimeLog(store.logs, clock);
    this.alerts = new Alerts(store, clock, bundle, alertOptions);
    this.log.watchIncidents(this.alerts.maker, (fn) => store.transaction(fn));
    this.services = { bundle, store, clock, log: this.log, tools: new ToolRegistry(bundle, this.log), provider, observer };
    this.dispatcher = new Dispatcher(this.services, buildHandlers(bundle), dispatcherOptions);
    const wake = () => this.dispatcher.wake();
    this.resetLock = new ResetLock(store, clock);
    const guardWrites = () => this.resetLock.guardWrites();
    this.dispatcher.stopClaimsWhileLocked(RESET_LOCK_KEY);
    this.ingress = new Ingress({
      store,
      bundle,
      clock,
      log: this.log,
      onEventWritten: wake,
      guardWrites,
      localDispatch: this.dispatcher,
      guardWritesWithNext: () => this.resetLock.guardWritesWithNext(),
      observer,
    });
    this.mailbox = new MailboxService({ store, bundle, clock, log: this.log, onEventWritten: wake, observer });
    this.containers = containers ?? new LocalProcessManager({ store, clock });
    this.containers.setEventListener?.(
      (e) => void this.log.write({ level: e.level, component: 'containers', error_code: e.errorCode, message: e.message, entity_id: e.entityId }).catch(() => undefined),
    );
    this.nodes = new NodeRegistry(store, this.log, this.dispatcher.owner, () => this.dispatcher.inFlightCount, nodeOptions);
    this.nodes.declaredDead = (tx, takeover) => this.alerts.nodeDead(tx, takeover, this.dispatcher.owner);
    this.entityContainers = new EntityContainers(store, bundle, this.containers, this.log, () => this.nodes.supervises());
    this.nodes.onBeat(() => this.superviseContainers());
    this.services.onEntityCreated = (entityId, entityType) => this.entityContainers.entityCreated(entityId, entityType);
    this.operationRunner = new OperationRunner({
      store,
      clock,
      bundle,
      log: this.log,
      nodeId: this.dispatcher.owner,
      deadAfterMs: this.nodes.deadAfterMs,
      isResetting: () => this.isResetting(),
      ingressPaused: async () => (await this.ingress.state()) === 'paused',
      wakeDispatcher: wake,
      finishedWithFailures: async (tx, operationId) => {
        const op = await store.operations.finishedWithFailures(tx, operationId);
        if (op) await this.alerts.operationFailed(tx, op);
      },
    });
    this.recovery = new Recovery(store, bundle, clock, this.operationRunner);
  }

  /**
   * Loads the bundle (BundleError on a bad one), registers its agents, finishes what a previous
   * process left (queued items of an interrupted resume, runs that went quiet) and starts the
   * dispatcher, which reclaims deliveries whose lease expired.
   */
  static async boot(options: RuntimeOptions): Promise<Runtime> {
    const clock = options.clock ?? options.store.clock ?? systemClock;
    const bundle = loadBundle(options.bundlePath ?? DEFAULT_BUNDLE_PATH, clock.now());
    const provider = options.modelProvider && 'complete' in options.modelProvider ? options.modelProvider : createModelProvider(options.modelProvider);
    const runtime = new Runtime(options.store, bundle, clock, provider, options.dispatcher, options.containers, options.node, options.observer, options.alerts);
    runtime.resetDrainTimeoutMs = options.resetDrainTimeoutMs;
    await runtime.nodes.join();
    await runtime.alerts.prepare();
    await runtime.resetLock.prepare();
    await runtime.registerAgents();
    await runtime.loadToolServerFaults();
    await runtime.log.write({
      level: 'info',
      component: 'runtime',
      message: `booted ${bundle.definition.name}@${bundle.definition.version} (${bundle.fingerprint}) with the ${provider.name} model provider as ${runtime.dispatcher.owner}`,
    });
    if ((await runtime.ingress.state()) === 'open') await runtime.ingress.releaseQueued();
    await runtime.dispatcher.settleQuietRuns();
    runtime.supervising = await runtime.nodes.supervises();
    await runtime.entityContainers.recover().catch((err: Error) =>
      runtime.log.write({ level: 'error', component: 'containers', error_code: 'CONTAINER_RECOVERY_FAILED', message: `recovering managed containers failed: ${err.message}` }),
    );
    if (options.autoStart !== false) runtime.start();
    return runtime;
  }

  private async registerAgents(): Promise<void> {
    const nowIso = this.clock.now().toISOString();
    for (const a of this.bundle.definition.agents) {
      const identity = { type: a.type, role: a.role, model_tier: a.model_tier, conversation_mode: a.conversation_mode, session_scope: a.session_scope };
      await this.store.agentWrites.register(a.agent_id, identity, nowIso);
    }
    // A process that died mid-turn leaves its agents marked busy; their deliveries will be
    // reclaimed. With other live nodes, a busy agent may be theirs: leave it.
    if ((await this.nodes.liveNodes()).every((n) => n.self)) await this.store.agentWrites.idleBusyAgents(nowIso);
  }

  get name(): string {
    return this.bundle.definition.name;
  }

  private supervising = false;
  private beatsSinceSweep = 0;

  /**
   * On each heartbeat: the node that became the containers' supervisor (its predecessor died)
   * runs the boot pass; the supervisor sweeps every few beats for entities created elsewhere.
   */
  private async superviseContainers(): Promise<void> {
    if (!this.entityContainers.enabled) return;
    const supervises = await this.nodes.supervises();
    const became = supervises && !this.supervising;
    this.supervising = supervises;
    if (became) await this.entityContainers.recover().catch(() => undefined);
    else if (supervises && ++this.beatsSinceSweep >= 5) {
      this.beatsSinceSweep = 0;
      await this.entityContainers.startMissing().catch(() => undefined);
    }
  }

  /** This process's node id (also its delivery lease owner). */
  get nodeId(): string {
    return this.dispatcher.owner;
  }

  start(): void {
    this.nodes.start();
    this.resetLock.watch();
    this.dispatcher.start();
    this.alerts.start(this.nodeId);
    void this.operationRunner.start().catch((err: Error) =>
      this.log.write({ level: 'error', component: 'operations', error_code: 'OPERATION_FAULT', message: `resuming operations failed: ${err.message}` }),
    );
  }

  /** Stops dispatching and waits for in-flight handlers. */
  async stop(): Promise<void> {
    await this.alerts.stop();
    await this.operationRunner.stop();
    await this.dispatcher.stop();
    await this.entityContainers.stop();
    await this.containers.close();
    this.resetLock.unwatch();
    await this.nodes.leave();
  }

  /** Waits until no delivery is open (tests, the demo). */
  waitForIdle(timeoutMs = 30_000): Promise<void> {
    return waitForIdle(this.dispatcher, this.store, timeoutMs);
  }

  private refuseDuringReset(): void {
    if (this.isResetting()) throw new RpcError('RESET_IN_PROGRESS', 'A runtime reset is in progress; retry when it has finished');
  }

  /**
   * The commit hook of a mutation, checked against the reset lock inside its transaction (see
   * ResetLock.guardWrites): a reset on another node refuses it even when this node has not seen
   * that reset yet.
   */
  private guarded<O>(onCommit: OnEffectCommit<O> | undefined): OnEffectCommit<O> {
    const guard = this.resetLock.guardWrites();
    return async (trx, outcome) => {
      await guard(trx);
      await onCommit?.(trx, outcome);
    };
  }

  async publish(input: PublishInput, onCommit?: OnEffectCommit<PublishResult>): Promise<PublishResult> {
    this.refuseDuringReset();
    return this.ingress.publish(input, onCommit);
  }

  ingressState(): Promise<IngressState> {
    return this.ingress.state();
  }

  async pause(reason?: string, actor?: string, onCommit?: OnEffectCommit<{ ok: true; ingress: IngressState }>): Promise<{ ok: true; ingress: IngressState }> {
    this.refuseDuringReset();
    const ingress = await this.ingress.pause(reason, actor, onCommit && ((trx, state) => onCommit(trx, { ok: true, ingress: state })));
    return { ok: true, ingress };
  }

  async resume(actor?: string, onCommit?: OnEffectCommit<{ ok: true; released: number }>): Promise<{ ok: true; released: number }> {
    this.refuseDuringReset();
    const released = await this.ingress.resume(actor, onCommit && ((trx, count) => onCommit(trx, { ok: true, released: count })));
    return { ok: true, released };
  }

  async status(): Promise<RuntimeStatus> {
    const [ingress, queue_depth, active_runs, pending] = await Promise.all([
      this.ingress.state(),
      this.ingress.queueDepth(),
      this.store.runWrites.countByStatus('runs', ['running']),
      this.store.deliveries.openCount(),
    ]);
    const def = this.bundle.definition;
    return {
      name: def.name,
      ingress,
      queue_depth,
      active_runs,
      pending_deliveries: pending,
      reset_in_progress: this.isResetting(),
      bundle: { name: def.name, version: def.version, fingerprint: this.bundle.fingerprint, loaded_at: this.bundle.loadedAt },
      started_at: this.startedAt.toISOString(),
    };
  }

  /**
   * Runtime components for health.check: the dispatcher (running, and how far the oldest due
   * delivery is behind) and the model provider in use.
   */
  async healthChecks(): Promise<Record<string, { ok: boolean; latency_ms: number; detail?: string }>> {
    const started = performance.now();
    const now = this.clock.now();
    const oldestDueAt = await this.store.runWrites.oldestDueAt(now.toISOString());
    // Due times are on the store's clock (the database's on PostgreSQL), so the lag is too.
    const lagMs = oldestDueAt ? now.getTime() - Date.parse(oldestDueAt) : 0;
    const d = this.dispatcher;
    const running = d.isRunning && !d.claimsArePaused;
    const dispatcherDetail = !d.isRunning
      ? 'dispatcher stopped'
      : d.claimsArePaused
        ? 'claims paused'
        : lagMs > DISPATCH_LAG_DEGRADED_MS
          ? `oldest due delivery waiting ${Math.round(lagMs / 1000)} s`
          : d.inFlightCount === 0
            ? 'idle, no handler running'
            : `${d.inFlightCount} handler${d.inFlightCount === 1 ? '' : 's'} running`;
    return {
      dispatcher: { ok: running && lagMs <= DISPATCH_LAG_DEGRADED_MS, latency_ms: Math.round((performance.now() - started) * 100) / 100, detail: dispatcherDetail },
      model_provider: { ok: true, latency_ms: 0, detail: this.services.provider.name },
    };
  }

  async approveMailboxItem(input: ApproveInput, onCommit?: OnEffectCommit<DecisionOutcome>): Promise<DecisionOutcome> {
    this.refuseDuringReset();
    return this.mailbox.approve(input, this.guarded(onCommit));
  }

  async rejectMailboxItem(input: RejectInput, onCommit?: OnEffectCommit<DecisionOutcome>): Promise<DecisionOutcome> {
    this.refuseDuringReset();
    return this.mailbox.reject(input, this.guarded(onCommit));
  }

  decisionSheet(mailboxId: string) {
    return this.mailbox.decisionSheet(mailboxId);
  }

  /** Cancels deliveries not yet started (all, or of these runs); reset quiescence. */
  cancelPending(runIds?: string[]) {
    return this.dispatcher.cancelPending(runIds);
  }

  /** event.redrive and event.replay: a dry run estimates, an apply starts an operation. */
  async recover(request: Parameters<Recovery['run']>[0], onCommit?: Parameters<Recovery['run']>[1]) {
    if (request.dryRun) return this.recovery.run(request, onCommit);
    this.refuseDuringReset();
    return this.recovery.run(request, this.guarded(onCommit));
  }

  toolServers(): Result<'runtime.tool_servers'>['tool_servers'] {
    return this.services.tools.list().map(describeToolServer);
  }

  /** Turns a simulated tool server's faults on or off; remembered across restarts. */
  async setToolServerFaults(name: string, faults: 'on' | 'off', actorTokenId: string, onCommit?: OnEffectCommit<{ tool_server: ReturnType<typeof describeToolServer> }>) {
    const server = this.services.tools.server(name);
    if (!server) throw new RpcError('NOT_FOUND', `no tool server ${name} in bundle ${this.bundle.definition.name}`, { tool_server: name });
    const result = { tool_server: { ...describeToolServer(server), faults } };
    await this.store.transaction(async (trx) => {
      await this.store.runtimeRecords.setToolFaults(trx, name, faults);
      await onCommit?.(trx, result);
    });
    server.faultsOn = faults === 'on';
    await this.log.write({ level: 'info', component: name, message: `faults turned ${faults} by ${actorTokenId}` });
    return result;
  }

  private async loadToolServerFaults(): Promise<void> {
    for (const [name, faults] of await this.store.runtimeRecords.toolFaults()) {
      const server = this.services.tools.server(name);
      if (server) server.faultsOn = faults === 'on';
    }
  }

  /** True while a reset on this node or (as last seen, within ~250 ms) another one holds the runtime. */
  /** No managed container is waiting to be started for a new entity (starts run after the entity commits). */
  get containerStartsIdle(): boolean {
    return this.entityContainers.idle;
  }

  isResetting(): boolean {
    return this.resetLock.isHeldByAnyone();
  }

  /**
   * runtime.nuke: a dry run previews, an apply resets through the reset owners (plan and lock,
   * quiescence, cleanup, managed-container stop). Throws RESET_IN_PROGRESS or PLAN_STALE.
   */
  /** Called after every applied reset, whatever its outcome (every open console is told). */
  onReset(listener: (reset: AppliedReset) => void): () => void {
    this.resetListeners.add(listener);
    return () => this.resetListeners.delete(listener);
  }

  async reset(request: ResetRequest, onCommit?: OnEffectCommit<ResetResult>): Promise<ResetResult> {
    const result = await this.runReset(request, onCommit);
    if (!request.dryRun) {
      const applied: AppliedReset = {
        reset_id: result.reset_id ?? '',
        status: result.status,
        finished_at: this.clock.now().toISOString(),
        ...(request.reason ? { reason: request.reason } : {}),
        ...(request.actorTokenId ? { actor_token_id: request.actorTokenId } : {}),
      };
      for (const listener of this.resetListeners) listener(applied);
    }
    return result;
  }

  /** Reset previews this process served, by plan hash: a refused apply records what changed since. */
  private readonly resetPreviews: ResetPreviews = new Map();

  private runReset(request: ResetRequest, onCommit?: OnEffectCommit<ResetResult>): Promise<ResetResult> {
    const coordinator = new ResetCoordinator(
      {
        store: this.store,
        clock: this.clock,
        bundle: this.bundle,
        ingress: this.ingress,
        dispatcher: this.dispatcher,
        containers: this.containers,
        log: this.log,
        containerStarts: this.entityContainers,
        operations: { cancelAllForReset: () => this.operationRunner.cancelAllForReset('reset') },
      },
      this.resetLock,
      { drainTimeoutMs: this.resetDrainTimeoutMs, previews: this.resetPreviews },
    );
    if (request.dryRun) return coordinator.run(request, onCommit);
    // The reset.applied notice commits with the reset's outcome record.
    return coordinator.run(request, async (tx, result) => {
      await this.alerts.resetApplied(tx, { reset_id: result.reset_id, status: result.status, reason: request.reason, cleaned: result.cleanup !== undefined && 'deleted' in result.cleanup && result.cleanup.deleted !== null });
      await onCommit?.(tx, result);
    });
  }

}
