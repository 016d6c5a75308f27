/**
 * Wires store, runtime, dispatcher, HTTP and WebSocket into one running server. Used by main.ts
 * and by tests (which boot the real thing on an ephemeral port).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Runtime } from '@switchboard/runtime';
import { Store, hashSecret, systemClock, type Clock } from '@switchboard/store';
import type { Config } from './config';
import { createApp } from './http/app';
import type { Logger } from './logger';
import { handlers } from './methods/registry';
import { Dispatcher } from './rpc/dispatcher';
import type { HandlerRegistry } from './rpc/handler';
import { attachSocketServer } from './ws/socket-server';

export interface StartOptions {
  config: Config;
  logger: Logger;
  clock?: Clock;
  /** Extra handlers (tests register test-only methods this way). */
  extraHandlers?: HandlerRegistry;
}

export interface RunningServer {
  url: string;
  port: number;
  store: Store;
  runtime: Runtime;
  /** Set only when this start created the first token. */
  bootstrapToken?: string;
  close(): Promise<void>;
}

const IDEMPOTENCY_PURGE_INTERVAL_MS = 60 * 60 * 1000;

/** SWITCHBOARD_TOKEN names a known token; otherwise an empty store gets one bootstrap token. */
async function ensureToken(store: Store, envToken: string | undefined): Promise<string | undefined> {
  if (envToken) {
    if (!(await store.tokens.findByHash(hashSecret(envToken)))) await store.tokens.create('env:SWITCHBOARD_TOKEN', envToken);
    return undefined;
  }
  if ((await store.tokens.count()) > 0) return undefined;
  const { secret } = await store.tokens.create('bootstrap');
  return secret;
}

export async function startServer(options: StartOptions): Promise<RunningServer> {
  const { config, logger } = options;
  const clock = options.clock ?? systemClock;
  let ready = false;
  const store = await Store.open({ dataDir: config.dataDir, clock });
  let runtime: Runtime;
  try {
    runtime = await Runtime.boot({ store, bundlePath: config.bundlePath, clock });
  } catch (err) {
    await store.close();
    throw err;
  }
  const bootstrapToken = await ensureToken(store, config.token);
  await store.idempotency.dropInProgress();
  await store.idempotency.purgeExpired();

  const dispatcher = new Dispatcher({ ...handlers, ...options.extraHandlers });
  const app = createApp({ config, store, runtime, logger, dispatcher, isReady: () => ready });

  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, () => resolve(s as Server));
    (s as Server).once('error', reject);
  });
  const sockets = attachSocketServer(server, { config, store, runtime, logger, dispatcher });
  const purge = setInterval(() => void store.idempotency.purgeExpired().catch(() => undefined), IDEMPOTENCY_PURGE_INTERVAL_MS);
  purge.unref();
  ready = true;

  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    store,
    runtime,
    bootstrapToken,
    close() {
      closing ??= (async () => {
        ready = false;
        clearInterval(purge);
        await sockets.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections?.();
        });
        await runtime.stop();
        await store.close();
      })();
      return closing;
    },
  };
}
