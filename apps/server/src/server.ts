/**
 * Wires store, runtime, method executor, HTTP and WebSocket into one running server. Used by main.ts
 * and by tests (which boot the real thing on an ephemeral port).
 */
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Runtime, createContainerManager, runDemoScenario, startSteadyTraffic, type SteadyTraffic } from '@switchboard/runtime';
import { lockDataDir, Store, hashSecret, type ChangeListener, type Clock } from '@switchboard/store';
import { storeLocation, type Config } from './config';
import { AuditTrail } from './audit/audit-trail';
import { createApp } from './http/app';
import { discoverIssuer } from './http/oidc/discovery';
import { OidcSignIn } from './http/oidc/sign-in';
import { RateLimiter } from './http/rate-limiter';
import { connectionRamp } from './http/connection-ramp';
import type { Logger } from './logger';
import { handlers } from './methods/registry';
import { MethodExecutor } from './rpc/method-executor';
import type { ExtraMethod, HandlerRegistry } from './rpc/handler';
import { createSocketServer, type SocketServer } from './ws/socket-server';
import { routeUpgrades } from './http/websocket-upgrade';
import { Metrics } from './observability/metrics';
import { listenForScrapes } from './observability/metrics-listener';
import { cursorSecretOf } from './pagination/cursor';
import { ReaderThreads, readerThreadsBuilt } from './reads/reader-threads';

export interface StartOptions {
  config: Config;
  logger: Logger;
  clock?: Clock;
  /** Handlers for contract methods, added to (or replacing) the registry's. */
  extraHandlers?: HandlerRegistry;
  /** Methods outside the published contract that carry their own definition (test-only methods). */
  extraMethods?: readonly ExtraMethod[];
}

export interface RunningServer {
  url: string;
  port: number;
  store: Store;
  runtime: Runtime;
  /** The change feed as this server follows it. */
  changes: ChangeListener;
  /** Open WebSocket connections and heartbeat subscriptions. */
  sockets: Pick<SocketServer, 'connectionCount' | 'subscriptionCount' | 'bufferedBytes'>;
  /** Set only when this start created the first token. */
  bootstrapToken?: string;
  /** The listener that serves only /metrics, when SWITCHBOARD_METRICS_PORT is set. */
  metricsUrl?: string;
  /** Threads that read list pages beside the main thread, started when needed (0: the main thread reads them all). */
  readerThreads: number;
  close(): Promise<void>;
}

const IDEMPOTENCY_PURGE_INTERVAL_MS = 60 * 60 * 1000;
/** This server's package version, reported with its row in health.check. */
const SERVER_VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;
/** runtime_state key naming the server that created the bootstrap token. */
const BOOTSTRAP_CLAIM_KEY = 'bootstrap_token_by';
/** runtime_state key naming the server that runs the first-start demo. */
const DEMO_CLAIM_KEY = 'demo_claimed_by';

/** SWITCHBOARD_TOKEN names a known token; otherwise an empty store gets one bootstrap token. */
async function ensureToken(store: Store, envToken: string | undefined, logger: Logger, serverId: string): Promise<string | undefined> {
  if (envToken) {
    const known = await store.tokens.findByHash(hashSecret(envToken));
    if (!known) await store.tokens.create('env:SWITCHBOARD_TOKEN', { secret: envToken });
    // A revoked token stays revoked; say so rather than let every request fail with no hint.
    else if (known.revoked_at) logger.warn('SWITCHBOARD_TOKEN names a revoked token; requests with it will be refused', { token_id: known.id });
    return undefined;
  }
  if ((await store.tokens.count()) > 0) return undefined;
  // Servers starting together on an empty database: one of them creates (and prints) the token.
  if ((await store.runtimeState.setIfAbsent(BOOTSTRAP_CLAIM_KEY, serverId)) !== serverId) return undefined;
  const { secret } = await store.tokens.create('bootstrap');
  return secret;
}

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config, logger } = options;
  let ready = false;
  // First, before anything holds a folder or a connection: a wrong issuer stops the start in one line.
  const oidcClient = config.oidc ? await discoverIssuer(config.oidc) : undefined;
  // Before anything touches the SQLite folder: a second server on it is refused, naming the holder.
  // Several servers may share one PostgreSQL database: each registers as a server (see ServerRegistry).
  const folderLock = config.databaseUrl ? { release: () => undefined } : lockDataDir(config.dataDir);
  let store: Store;
  try {
    // Unless a test injects one, the store picks the clock: on PostgreSQL the database's (several
    // hosts write the timestamps that order pages and cursors), on SQLite this host's.
    store = await Store.open({ ...storeLocation(config), clock: options.clock });
  } catch (err) {
    folderLock.release();
    throw err;
  }
  const clock = store.clock;
  const metrics = config.metrics.enabled ? new Metrics(logger) : undefined;
  if (metrics) store.observe(metrics);
  let runtime: Runtime;
  try {
    runtime = await Runtime.boot({
      store,
      bundlePath: config.bundlePath,
      clock,
      containers: createContainerManager(
        {
          kind: config.containers,
          command: config.containerCommand,
          stopTimeoutMs: config.containerStopTimeoutMs,
          maxContainers: config.maxContainers,
          dockerSocket: config.dockerSocket,
          dockerImage: config.dockerImage,
        },
        { store, clock },
      ),
      resetDrainTimeoutMs: config.resetDrainTimeoutMs,
      server: { ...config.server, version: SERVER_VERSION },
      dispatcher: { concurrency: config.dispatchConcurrency },
      alerts: { ...config.alerts, publicUrl: config.publicUrl },
      retention: config.retention,
      modelProvider:
        config.modelProvider === 'openai'
          ? { kind: 'openai', baseUrl: config.openai.baseUrl ?? '', apiKey: config.openai.apiKey, model: config.openai.model }
          : { kind: 'scripted' },
      observer: metrics,
    });
  } catch (err) {
    await store.close();
    folderLock.release();
    throw err;
  }
  let changes: ChangeListener;
  try {
    // This server's commits are recorded as its own; the listener follows everyone's.
    store.changes.identify(runtime.serverId);
    changes = await store.followChanges({ log: (level, message, fields) => logger[level](message, fields) });
    // Deliveries another server wrote for any server to claim (a publish beyond its own free handlers,
    // a chain's next step, a redrive) are claimed here as soon as its change is heard. Its other
    // writes of events and deliveries (a server of an older version marks nothing claimable) wake
    // the claim loop at most every 100 ms, sooner than its idle poll (up to 250 ms).
    changes.subscribe((batch) => {
      const others = batch.filter((c) => c.server_id !== runtime.serverId);
      if (others.some((c) => c.claimable)) runtime.dispatcher.wakeToClaim();
      else if (others.some((c) => c.kinds.some((k) => k === 'events' || k === 'deliveries'))) runtime.dispatcher.wakeForOtherServer();
      if (others.some((c) => c.kinds.includes('alerts'))) void runtime.alerts.rulesChanged();
    });
  } catch (err) {
    await runtime.stop().catch(() => undefined);
    await store.close().catch(() => undefined);
    folderLock.release();
    throw err;
  }
  // An injected clock (tests) drives the budget too; otherwise the monotonic clock does.
  const limiter = new RateLimiter(config.rateLimitPerSecond, options.clock ? () => clock.now().getTime() : undefined);
  let server: Server;
  let methodExecutor: MethodExecutor;
  let bootstrapToken: string | undefined;
  let scrapes: Awaited<ReturnType<typeof listenForScrapes>>;
  let app: ReturnType<typeof createApp>;
  let readers: ReaderThreads | undefined;
  try {
    bootstrapToken = await ensureToken(store, config.token, logger, runtime.serverId);
    await store.idempotency.purgeExpired();
    methodExecutor = new MethodExecutor({ ...handlers, ...options.extraHandlers }, options.extraMethods, metrics, config.checkResults);
    const executor = methodExecutor;
    // Nothing under way but the caller's own call: no other call on any transport, no delivery running.
    const mainThreadQuiet = () => executor.callsInFlight <= 1 && runtime.dispatcher.inFlightCount === 0;
    readers = await readerThreads(store, config, logger, mainThreadQuiet);
    const oidc = config.oidc && oidcClient ? new OidcSignIn({ config: config.oidc, client: oidcClient, store, logger, audit: new AuditTrail(store, () => runtime.serverId) }) : undefined;
    app = createApp({ config, store, runtime, logger, methodExecutor, limiter, oidc, metrics, readers, isReady: () => ready });
    server = await new Promise<Server>((resolve, reject) => {
      const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs } = config.http;
      const serverOptions = {
        headersTimeout: headersTimeoutMs,
        requestTimeout: requestTimeoutMs,
        keepAliveTimeout: keepAliveTimeoutMs,
        // Node checks the two timeouts above on this interval (30 s by default, which would let a stalled body outlive its timeout).
        connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(headersTimeoutMs / 4))),
      };
      const ramp = connectionRamp(getRequestListener(app.fetch, { hostname: config.host }));
      const s = createServer(serverOptions, ramp.listener);
      ramp.watch(s);
      s.listen(config.port, config.host, () => resolve(s));
      s.maxConnections = config.http.maxConnections;
      s.once('error', reject);
    });
    scrapes = await listenForScrapes(config, { store, logger, metrics, serverId: () => runtime.serverId }).catch(async (err: unknown) => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      throw err;
    });
  } catch (err) {
    // Release what booted (the runtime's timers, the database file) so the process can exit with the error.
    await readers?.close().catch(() => undefined);
    await runtime.stop().catch(() => undefined);
    await store.close().catch(() => undefined);
    folderLock.release();
    throw err;
  }
  const sockets = createSocketServer({ config, store, runtime, logger, methodExecutor, limiter, changes, readers });
  routeUpgrades(server, app, logger, sockets.accept);
  metrics?.attach({ store, runtime, sockets, version: SERVER_VERSION });
  const purge = setInterval(() => void store.idempotency.purgeExpired().catch(() => undefined), IDEMPOTENCY_PURGE_INTERVAL_MS);
  purge.unref();
  ready = true;
  const demo = await startDemo(config, runtime, store, logger);

  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    store,
    runtime,
    changes,
    sockets: { connectionCount: () => sockets.connectionCount(), subscriptionCount: () => sockets.subscriptionCount(), bufferedBytes: () => sockets.bufferedBytes() },
    bootstrapToken,
    metricsUrl: scrapes?.url,
    readerThreads: readers ? config.readerThreads : 0,
    close() {
      closing ??= (async () => {
        ready = false;
        clearInterval(purge);
        await demo?.stop();
        await sockets.close();
        await scrapes?.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections?.();
        });
        await readers?.close();
        await runtime.stop();
        await store.close();
        folderLock.release();
      })();
      return closing;
    },
  };
}

/**
 * Reader threads for list pages where the store gains from them (SQLite: its statements otherwise
 * all run on the main thread) and the configuration asks for any.
 */
async function readerThreads(store: Store, config: Config, logger: Logger, mainThreadQuiet: () => boolean): Promise<ReaderThreads | undefined> {
  const file = store.threadReaderFile;
  if (!file || config.readerThreads === 0) return undefined;
  if (!readerThreadsBuilt) {
    logger.info('reading list pages on the main thread: reader threads run from the built server (npm start)');
    return undefined;
  }
  // After the runtime's boot, which created the bundle's payload indexes.
  return new ReaderThreads({
    file,
    cursorSecret: await cursorSecretOf(store),
    payloadIndexPaths: store.events.payloadIndexPaths(),
    threads: config.readerThreads,
    logger,
    ...(config.readerThreadsWhen === 'busy' ? { mainThreadQuiet } : {}),
  });
}

/**
 * Several servers may start together on an empty database: the first to write the claim runs the
 * demo. A claim whose server is no longer alive (it died before publishing) is taken over.
 */
async function claimDemo(store: Store, runtime: Runtime): Promise<boolean> {
  const holder = await store.runtimeState.setIfAbsent(DEMO_CLAIM_KEY, runtime.serverId);
  if (holder === runtime.serverId) return true;
  const alive = (await runtime.servers.liveServers()).some((n) => n.server_id === holder);
  return !alive && (await store.runtimeState.replaceIf(DEMO_CLAIM_KEY, holder, runtime.serverId));
}

/**
 * Demo data on first start: with a store that never held data (no events, never reset) the demo scenario runs through the real runtime
 * (in the background, so the server answers at once); `steady` keeps a trickle of traffic going.
 */
async function startDemo(config: Config, runtime: Runtime, store: Store, logger: Logger): Promise<SteadyTraffic | undefined> {
  if (config.demo === 'off') return undefined;
  // Only a store that never held data: after a deliberate reset the operator wants it empty.
  const neverUsed = (await store.runtimeRecords.neverUsed()) && (await claimDemo(store, runtime));
  if (neverUsed) {
    logger.info('demo scenario starting (a store that never held data)');
    runDemoScenario(runtime)
      .then((r) => logger.info('demo scenario finished', { result: r as unknown as Record<string, unknown> }))
      .catch((err: Error) => logger.warn('demo scenario did not finish', { error: err.message }));
  }
  if (config.demo !== 'steady') return undefined;
  return startSteadyTraffic(runtime, {
    ratePerMinute: config.demoRatePerMinute,
    onError: (err) => logger.warn('steady demo publish failed', { error: err.message }),
  });
}
