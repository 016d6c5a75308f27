/**
 * Crash tests: server processes on one data folder, started and killed at will, and raw JSON-RPC
 * calls to them (a killed server's answer never comes, so calls are plain fetches).
 */
import { afterAll } from 'vitest';
import type { MethodName, ParamsInput, Result } from '@switchboard/contract';
import { removeDataDir, temporaryDataDir } from '@switchboard/testkit';
import { CONTROL_BUNDLE } from './control-helpers';
import { startServerProcess, type ServerProcess } from './server-process';

export interface CrashServers {
  dataDir: string;
  /** Starts a server process on the data folder (the control bundle); `env` adds to or overrides its environment. */
  start(env?: Record<string, string>): Promise<ServerProcess>;
  /** One JSON-RPC body (a request or a batch); resolves with the parsed answer, unchecked (the caller asserts its shape). */
  call(url: string, body: unknown): Promise<unknown>;
  /** One request, typed from the contract; throws on an error answer. */
  rpc<M extends MethodName>(url: string, method: M, params?: ParamsInput<M>): Promise<Result<M>>;
}

/** A data folder for one crash test file, removed (and its processes killed) after the file. */
export function crashServers(prefix: string, token: string): CrashServers {
  const dataDir = temporaryDataDir(prefix);
  const children: ServerProcess[] = [];
  afterAll(() => {
    for (const c of children) if (c.running()) c.child.kill('SIGKILL');
    removeDataDir(dataDir);
  });
  const call = async (url: string, body: unknown): Promise<unknown> => {
    const res = await fetch(url + '/v1/rpc', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    return res.json();
  };
  return {
    dataDir,
    async start(env = {}) {
      const server = await startServerProcess({ SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_TOKEN: token, SWITCHBOARD_BUNDLE: CONTROL_BUNDLE, ...env });
      children.push(server);
      return server;
    },
    call,
    async rpc<M extends MethodName>(url: string, method: M, params: ParamsInput<M> = {} as ParamsInput<M>): Promise<Result<M>> {
      const res = (await call(url, { jsonrpc: '2.0', id: 1, method, params })) as { result?: unknown; error?: unknown };
      if (res.error) throw new Error(`${method}: ${JSON.stringify(res.error)}`);
      return res.result as Result<M>;
    },
  };
}
