/**
 * Boots the real server (store, runtime, HTTP, WebSocket) on an ephemeral port with a fresh data
 * folder, for API tests that must go over a real socket.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Clock } from '@switchboard/store';
import { loadConfig, type Config } from '../src/config';
import { createLogger } from '../src/logger';
import type { ExtraMethod, HandlerRegistry } from '../src/rpc/handler';
import { startServer, type RunningServer } from '../src/server';

export const TEST_TOKEN = 'sbk_test_token_for_api_tests_0001';

export interface TestServer extends RunningServer {
  token: string;
  dataDir: string;
  /** Every structured log line the server wrote, parsed. */
  logs: Record<string, unknown>[];
  /** POST /v1/rpc with the test token; returns the parsed JSON body (or null for 204). */
  rpc(method: string, params?: unknown, init?: { id?: string | number; token?: string }): Promise<any>;
  post(pathname: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  clock?: Clock;
  extraHandlers?: HandlerRegistry;
  /** Test-only methods with their own definitions (never part of the published contract). */
  extraMethods?: readonly ExtraMethod[];
  dataDir?: string;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-test-'));
  const config: Config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_TOKEN: TEST_TOKEN,
    SWITCHBOARD_DEMO: 'off',
    SWITCHBOARD_RATE_LIMIT_PER_S: '0',
    ...options.env,
  });
  const logs: Record<string, unknown>[] = [];
  const logger = createLogger('debug', (line) => logs.push(JSON.parse(line)));
  const running = await startServer({
    config,
    logger,
    clock: options.clock,
    extraHandlers: options.extraHandlers,
    extraMethods: options.extraMethods,
  });
  const post = (pathname: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(running.url + pathname, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_TOKEN}`, ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });
  return {
    ...running,
    token: TEST_TOKEN,
    dataDir,
    logs,
    post,
    async rpc(method, params, init = {}) {
      const res = await fetch(running.url + '/v1/rpc', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${init.token ?? TEST_TOKEN}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: init.id ?? 1, method, ...(params === undefined ? {} : { params }) }),
      });
      return res.status === 204 ? null : res.json();
    },
    async close() {
      await running.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
