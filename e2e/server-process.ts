/**
 * Runs the real Switchboard server as a child process for the e2e tests (the testkit's server
 * process): fresh data folder, free port, known token, fast heartbeats. It can be stopped and
 * started again on the same port and data folder (the reconnect test needs that).
 */
import path from 'node:path';
import { freePort, removeDataDir, repoRoot, startServerProcess, temporaryDataDir, type ServerProcess as RunningProcess } from '@switchboard/testkit';
import { rpcClient, type RpcClient } from './rpc-client';

export { freePort, repoRoot };

export interface ServerOptions {
  token?: string;
  /** A port chosen beforehand (when the URL must be known before the start, as a sign-in callback's is); a free one otherwise. */
  port?: number;
  heartbeatMs?: number;
  env?: Record<string, string>;
}

export class ServerProcess {
  readonly dataDir: string;
  readonly token: string;
  port = 0;
  private running: RunningProcess | null = null;
  /** The output of the processes that ended, for failure messages after a restart. */
  private earlier = '';

  private constructor(private readonly opts: ServerOptions) {
    this.dataDir = temporaryDataDir('e2e');
    this.token = opts.token ?? `sbk_e2e_${Math.random().toString(36).slice(2)}${Date.now().toString(36)}`;
  }

  static async start(opts: ServerOptions = {}): Promise<ServerProcess> {
    const server = new ServerProcess(opts);
    server.port = opts.port ?? (await freePort());
    await server.startProcess();
    return server;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The server's process id while it runs (node itself runs the server, so a SIGKILL reaches it). */
  get pid(): number | undefined {
    return this.running?.pid;
  }

  /** Server output so far, for failure messages. */
  get log(): string {
    return (this.earlier + (this.running?.output() ?? '')).slice(-4000);
  }

  async startProcess(): Promise<void> {
    if (this.running) throw new Error('server already running');
    this.running = await startServerProcess({
      baseEnv: 'inherit',
      port: this.port,
      dataDir: this.dataDir,
      token: this.token,
      env: {
        SWITCHBOARD_HEARTBEAT_INTERVAL_MS: String(this.opts.heartbeatMs ?? 1000),
        SWITCHBOARD_WEB_DIST: path.join(repoRoot, 'dist', 'web'),
        SWITCHBOARD_LOG_LEVEL: 'warn',
        SWITCHBOARD_CHECK_RESULTS: 'on',
        ...this.opts.env,
      },
      stdout: 'capture',
      stderr: 'capture',
      readyTimeoutMs: 60_000,
      readyPollMs: 150,
    });
  }

  /** Stops the process (SIGTERM, then SIGKILL after 5 s) and waits until it exited. */
  async stop(): Promise<void> {
    const running = this.running;
    if (!running) return;
    this.running = null;
    await running.stop(5000);
    this.earlier += running.output();
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.startProcess();
  }

  async dispose(): Promise<void> {
    await this.stop();
    removeDataDir(this.dataDir);
  }

  /** JSON-RPC calls with the bearer token (for seeding and for checking what the page shows). */
  get rpc(): RpcClient['rpc'] {
    return rpcClient(this.url, this.token).rpc;
  }

  get rpcBatch(): RpcClient['rpcBatch'] {
    return rpcClient(this.url, this.token).rpcBatch;
  }
}
