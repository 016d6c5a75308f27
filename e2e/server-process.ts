/**
 * Runs the real Switchboard server as a child process for the e2e tests: fresh data folder, free
 * port, known token, fast heartbeats. It can be stopped and started again on the same port and
 * data folder (the reconnect test needs that).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { rpcClient, type RpcClient } from './rpc-client';

export const repoRoot = path.resolve(import.meta.dirname, '..');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

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
  private child: ChildProcess | null = null;
  private output = '';

  private constructor(private readonly opts: ServerOptions) {
    this.dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-e2e-'));
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

  /** The server's process id while it runs (node itself runs the server: see startProcess). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Server output so far, for failure messages. */
  get log(): string {
    return this.output.slice(-4000);
  }

  async startProcess(): Promise<void> {
    if (this.child) throw new Error('server already running');
    // node itself with the tsx loader (not the tsx CLI), so a SIGKILL reaches the server and leaves no orphan.
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'apps', 'server', 'src', 'main.ts')], {
      cwd: repoRoot,
      env: {
        ...process.env,
        SWITCHBOARD_DATA_DIR: this.dataDir,
        SWITCHBOARD_TOKEN: this.token,
        PORT: String(this.port),
        HOST: '127.0.0.1',
        SWITCHBOARD_HEARTBEAT_INTERVAL_MS: String(this.opts.heartbeatMs ?? 1000),
        SWITCHBOARD_WEB_DIST: path.join(repoRoot, 'dist', 'web'),
        SWITCHBOARD_LOG_LEVEL: 'warn',
        ...this.opts.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    child.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    const exited = new Promise<never>((_, reject) =>
      child.once('exit', (code) => reject(new Error(`server exited with code ${code} before it was ready:\n${this.log}`))),
    );
    await Promise.race([this.waitReady(60_000), exited]);
  }

  private async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      try {
        const r = await fetch(`${this.url}/readyz`);
        if (r.ok) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 150));
    }
    throw new Error(`server not ready after ${timeoutMs} ms:\n${this.log}`);
  }

  /** Stops the process (SIGTERM, then SIGKILL after 5 s) and waits until the port is free. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = null;
    if (child.exitCode === null) {
      const done = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await done;
      clearTimeout(timer);
    }
  }

  async restart(): Promise<void> {
    await this.stop();
    await this.startProcess();
  }

  async dispose(): Promise<void> {
    await this.stop();
    fs.rmSync(this.dataDir, { recursive: true, force: true });
  }

  /** JSON-RPC calls with the bearer token (for seeding and for checking what the page shows). */
  get rpc(): RpcClient['rpc'] {
    return rpcClient(this.url, this.token).rpc;
  }

  get rpcBatch(): RpcClient['rpcBatch'] {
    return rpcClient(this.url, this.token).rpcBatch;
  }
}
