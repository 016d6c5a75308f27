/**
 * Boots the real server (store, runtime, HTTP, WebSocket) on an ephemeral port with a fresh data
 * folder, for API tests that must go over a real socket.
 */
import type { MethodName, ParamsInput, Result, RpcErrorObject } from '@switchboard/contract';
import type { Clock } from '@switchboard/store';
import { prepareTestStore, removeDataDir, temporaryDataDir } from '@switchboard/testkit';
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
  /** POST /v1/rpc with the test token: a contract method with params of its own type; the parsed answer. */
  rpc<M extends MethodName>(method: M, params?: ParamsInput<M>, init?: RpcInit): Promise<RpcAnswer<Result<M>>>;
  /** The same for what the contract would refuse (unknown methods, wrong params): nothing is typed. */
  rpcUnchecked(method: string, params?: unknown, init?: RpcInit): Promise<RpcAnswer<unknown>>;
  post(pathname: string, body: unknown, headers?: Record<string, string>): Promise<Response>;
}

export interface RpcInit {
  id?: string | number;
  token?: string;
}

/** One JSON-RPC answer: a result or an error, never both (a notification's 204 is null). */
export type RpcAnswer<T> =
  | { jsonrpc: '2.0'; id: string | number | null; result: T; error?: undefined }
  | { jsonrpc: '2.0'; id: string | number | null; result?: undefined; error: RpcErrorObject };

export interface TestServerOptions {
  env?: Record<string, string>;
  clock?: Clock;
  extraHandlers?: HandlerRegistry;
  /** Test-only methods with their own definitions (never part of the published contract). */
  extraMethods?: readonly ExtraMethod[];
  dataDir?: string;
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? temporaryDataDir('test');
  // In the PostgreSQL pass of the suite, the server runs on a database standing for its folder.
  const databaseUrl = await prepareTestStore(dataDir);
  const config: Config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    SWITCHBOARD_DATA_DIR: dataDir,
    ...(databaseUrl ? { SWITCHBOARD_DATABASE_URL: databaseUrl } : {}),
    SWITCHBOARD_TOKEN: TEST_TOKEN,
    SWITCHBOARD_DEMO: 'off',
    SWITCHBOARD_RATE_LIMIT_PER_S: '0',
    SWITCHBOARD_CHECK_RESULTS: 'on',
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
    rpc: (method, params, init) => postRpc(running.url, method, params, init),
    rpcUnchecked: (method, params, init) => postRpc(running.url, method, params, init),
    async close() {
      await running.close();
      removeDataDir(dataDir);
    },
  };
}

async function postRpc<T>(url: string, method: string, params: unknown, init: RpcInit = {}): Promise<RpcAnswer<T>> {
  const res = await fetch(url + '/v1/rpc', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${init.token ?? TEST_TOKEN}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: init.id ?? 1, method, ...(params === undefined ? {} : { params }) }),
  });
  if (res.status === 204) throw new Error(`${method}: answered 204, as to a notification`);
  return (await res.json()) as RpcAnswer<T>;
}
