/**
 * The optional listener of SWITCHBOARD_METRICS_PORT: on HOST, serving only GET /metrics (with the
 * same bearer-token and scope checks), so a network policy can open it to scrapers alone.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Store } from '@switchboard/store';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { Metrics } from './metrics';
import { createMetricsApp } from './metrics-route';

export interface ScrapeListener {
  url: string;
  close(): Promise<void>;
}

/** Undefined when metrics are off or no separate port is configured. */
export async function listenForScrapes(
  config: Config,
  deps: { store: Store; logger: Logger; metrics: Metrics | undefined; serverId: () => string },
): Promise<ScrapeListener | undefined> {
  const { metrics } = deps;
  if (!metrics || config.metrics.port === undefined) return undefined;
  const app = createMetricsApp({ ...deps, metrics });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: config.metrics.port, hostname: config.host }, () => resolve(s as Server)) as Server;
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections?.();
      }),
  };
}
