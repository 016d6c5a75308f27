/**
 * The embedded runtime: owns the boot bundle, ingress, the dispatcher and the services handlers
 * use. It knows nothing of HTTP or JSON-RPC; the control API calls it. Every record a read method
 * returns was produced here by processing events.
 */
import { createRequire } from 'node:module';
import type { RuntimeOptions, RuntimeParts } from './runtime-options';
import { RpcError, type Result } from '@switchboard/contract';
import type { Clock, Store } from '@switchboard/store';
import { systemClock } from '@switchboard/store';
import { loadBundle, type LoadedBundle } from './bundle/load';
import { Dispatcher } from './dispatcher';
import { buildHandlers } from './subscriber-handlers';
import { runtimeHealthChecks, runtimeStatus, type ComponentHealth } from './runtime-health';
import { registerAgents } from './agents/register-agents';
import { describeToolServer, loadToolServerFaults, setToolServerFaults, type ToolServerDescription } from './tool-servers/fault-switch';
import { waitForIdle } from './dispatch-idle';
import type { OnEffectCommit } from './effect-commit';
import type { RuntimeServices } from './handler';
import { Ingress, type IngressState, type PublishInput, type PublishResult } from './ingress';
import { MailboxService, type ApproveInput, type DecisionOutcome, type RejectInput } from './mailbox';
import { createModelProvider } from './providers/index';
import { RuntimeLog } from './runtime-log';
import { ToolRegistry } from './tool-servers/registry';
import type { ContainerManager } from './containers/container-manager';
import { EntityContainers } from './containers/entity-containers';
import { LocalProcessManager } from './containers/local-process-manager';
import type { ResetRequest, ResetResult } from './reset/reset-coordinator';
import { RuntimeResets, type AppliedReset } from './reset/runtime-resets';
import { RESET_LOCK_KEY, ResetLock } from './reset/reset-lock';
import { OperationRunner } from './operations/operation-runner';
import { Recovery } from './operations/recovery';
import { ServerRegistry } from './membership/server-registry';
import { noopRuntimeObserver } from './observer';
import { Alerts } from './alerts/alerts';
import { Incidents } from './incidents/incidents';
import { SavedViews } from './saved-views';
import { Retention } from './retention/retention';
import { DEFAULT_RETENTION_SETTINGS } from './retention/retention-settings';

/** Found through the package, not next to this file: the server also runs bundled, from apps/server/dist. */
export const DEFAULT_BUNDLE_PATH = createRequire(import.meta.url).resolve('@switchboard/runtime/bundles/support-desk.yaml');

export type { IngressState };
export type { RuntimeOptions };

export type RuntimeStatus = Result<'runtime.status'>;

export type { AppliedReset };

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
  /** This process's row among the store's servers, and the takeover of dead ones. */
  readonly servers: ServerRegistry;
  private readonly resets: RuntimeResets;
  /** Redrive and replay: estimates, operations and their runner. */
  readonly recovery: Recovery;
  private readonly operationRunner: OperationRunner;
  private readonly entityContainers: EntityContainers;
  /** Alert rules, destinations, the notice outbox and its sender. */
  readonly alerts: Alerts;
  /** Incident lists, states and their changes. */
  readonly incidents: Incidents;
  /** People's saved views of the console's lists, and who may see or change each. */
  readonly savedViews: SavedViews;
  /** Removal of settled history past its settings, scheduled and on request. */
  readonly retention: Retention;

  readonly store: Store;
  readonly bundle: LoadedBundle;
  readonly clock: Clock;

  private constructor(parts: RuntimeParts) {
    const { store, bundle, clock, provider } = parts;
    const observer = parts.observer ?? noopRuntimeObserver;
    this.store = store;
    this.bundle = bundle;
    this.clock = clock;
    this.startedAt = clock.now();
    this.log = new RuntimeLog(store.logs, clock);
    this.alerts = new Alerts(store, clock, bundle, parts.alerts);
    this.log.watchIncidents(this.alerts.maker, (fn) => store.transaction(fn));
    this.incidents = new Incidents(store, clock, () => this.alerts.maker.incidentStateChanged());
    this.savedViews = new SavedViews(store, clock);
    this.services = { bundle, store, clock, log: this.log, tools: new ToolRegistry(bundle, this.log), provider, observer };
    this.dispatcher = new Dispatcher(this.services, buildHandlers(bundle), parts.dispatcher);
    const wake = () => this.dispatcher.wake();
    this.resetLock = new ResetLock(store, clock);
    const guardWrites = (asReset?: string) => this.resetLock.guardWrites(asReset);
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
    this.containers = parts.containers ?? new LocalProcessManager({ store, clock });
    this.containers.setEventListener?.(
      (e) => void this.log.write({ level: e.level, component: 'containers', error_code: e.errorCode, message: e.message, entity_id: e.entityId }).catch(() => undefined),
    );
    this.servers = new ServerRegistry(store, this.log, this.dispatcher.owner, () => this.dispatcher.inFlightCount, parts.server);
    this.servers.declaredDead = (tx, takeover) => this.alerts.serverDead(tx, takeover, this.dispatcher.owner);
    this.entityContainers = new EntityContainers(store, bundle, this.containers, this.log, () => this.servers.supervises(), observer);
    this.servers.onBeat(() => this.entityContainers.heartbeat());
    this.services.onEntityCreated = (entityId, entityType) => this.entityContainers.entityCreated(entityId, entityType);
    this.operationRunner = new OperationRunner({
      store,
      clock,
      bundle,
      log: this.log,
      serverId: this.dispatcher.owner,
      deadAfterMs: this.servers.deadAfterMs,
      isResetting: () => this.isResetting(),
      ingressPaused: async () => (await this.ingress.state()) === 'paused',
      wakeDispatcher: wake,
      finishedWithFailures: async (tx, operationId) => {
        const op = await store.operations.finishedWithFailures(tx, operationId);
        if (op) await this.alerts.operationFailed(tx, op);
      },
      observer,
    });
    this.recovery = new Recovery(store, bundle, clock, this.operationRunner);
    this.retention = new Retention(store, clock, this.log, this.dispatcher.owner, { ...DEFAULT_RETENTION_SETTINGS, ...parts.retention }, () => this.isResetting());
    this.resets = new RuntimeResets({
      context: {
        store,
        clock,
        bundle,
        ingress: this.ingress,
        dispatcher: this.dispatcher,
        containers: this.containers,
        log: this.log,
        containerStarts: this.entityContainers,
        operations: { cancelAllForReset: () => this.operationRunner.cancelAllForReset('reset') },
      },
      lock: this.resetLock,
      alerts: this.alerts,
      drainTimeoutMs: parts.resetDrainTimeoutMs,
    });
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
    const runtime = new Runtime({ ...options, bundle, clock, provider });
    await runtime.servers.join();
    await runtime.store.events.ensurePayloadIndexes(Object.values(bundle.definition.events).flatMap((e) => e.indexed_payload_fields));
    await runtime.alerts.prepare();
    await runtime.resetLock.prepare();
    await registerAgents(runtime.store, bundle, clock, runtime.servers);
    await loadToolServerFaults(runtime.store, runtime.services.tools);
    await runtime.log.write({
      level: 'info',
      component: 'runtime',
      message: `booted ${bundle.definition.name}@${bundle.definition.version} (${bundle.fingerprint}) with the ${provider.name} model provider as ${runtime.dispatcher.owner}`,
    });
    for (const warning of bundle.warnings) await runtime.log.write({ level: 'warn', component: 'bundle', error_code: 'BUNDLE_DEPRECATED_NAME', message: warning });
    if ((await runtime.ingress.state()) === 'open') await runtime.ingress.releaseQueued();
    await runtime.dispatcher.settleQuietRuns();
    await runtime.entityContainers.noteSupervisor();
    await runtime.entityContainers.recover().catch((err: Error) =>
      runtime.log.write({ level: 'error', component: 'containers', error_code: 'CONTAINER_RECOVERY_FAILED', message: `recovering managed containers failed: ${err.message}` }),
    );
    if (options.autoStart !== false) runtime.start();
    return runtime;
  }

  get name(): string {
    return this.bundle.definition.name;
  }

  /** This process's server id (also its delivery lease owner). */
  get serverId(): string {
    return this.dispatcher.owner;
  }

  start(): void {
    this.servers.start();
    this.resetLock.watch();
    this.dispatcher.start();
    this.alerts.start(this.serverId);
    this.retention.start();
    void this.operationRunner.start().catch((err: Error) =>
      this.log.write({ level: 'error', component: 'operations', error_code: 'OPERATION_FAULT', message: `resuming operations failed: ${err.message}` }),
    );
  }

  /** Stops dispatching and waits for in-flight handlers. */
  async stop(): Promise<void> {
    await this.retention.stop();
    await this.alerts.stop();
    await this.operationRunner.stop();
    await this.dispatcher.stop();
    await this.entityContainers.stop();
    await this.containers.close();
    this.resetLock.unwatch();
    await this.servers.leave();
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
   * ResetLock.guardWrites): a reset on another server refuses it even when this server has not seen
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
    const ingress = await this.ingress.pause(reason, { actor, onCommit: onCommit && ((trx, state) => onCommit(trx, { ok: true, ingress: state })) });
    return { ok: true, ingress };
  }

  async resume(actor?: string, onCommit?: OnEffectCommit<{ ok: true; released: number }>): Promise<{ ok: true; released: number }> {
    this.refuseDuringReset();
    const released = await this.ingress.resume({ actor, onCommit: onCommit && ((trx, count) => onCommit(trx, { ok: true, released: count })) });
    return { ok: true, released };
  }

  status(): Promise<RuntimeStatus> {
    return runtimeStatus({ bundle: this.bundle, store: this.store, ingress: this.ingress, startedAt: this.startedAt, resetting: this.isResetting() });
  }

  /**
   * Runtime components for health.check: the dispatcher (running, and how far the oldest due
   * delivery is behind) and the model provider in use.
   */
  healthChecks(): Promise<Record<string, ComponentHealth>> {
    return runtimeHealthChecks(this.store, this.clock, this.dispatcher, this.services.provider);
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
  setToolServerFaults(name: string, faults: 'on' | 'off', actorTokenId: string, onCommit?: OnEffectCommit<{ tool_server: ToolServerDescription }>) {
    return setToolServerFaults({ store: this.store, tools: this.services.tools, log: this.log, bundleName: this.bundle.definition.name }, name, faults, actorTokenId, onCommit);
  }

  /** No managed container is waiting to be started for a new entity (starts run after the entity commits). */
  get containerStartsIdle(): boolean {
    return this.entityContainers.idle;
  }

  /** True while a reset on this server or (as last seen, within ~250 ms) another one holds the runtime. */
  isResetting(): boolean {
    return this.resetLock.isHeldByAnyone();
  }

  /** Called after every applied reset, whatever its outcome (every open console is told). */
  onReset(listener: (reset: AppliedReset) => void): () => void {
    return this.resets.onReset(listener);
  }

  /**
   * runtime.nuke: a dry run previews, an apply resets through the reset owners (plan and lock,
   * quiescence, cleanup, managed-container stop). Throws RESET_IN_PROGRESS or PLAN_STALE.
   */
  reset(request: ResetRequest, onCommit?: OnEffectCommit<ResetResult>): Promise<ResetResult> {
    return this.resets.reset(request, onCommit);
  }
}
