/**
 * Several real server processes ("servers") on one PostgreSQL database, started, killed, stopped
 * and resumed at will, plus a plain pg pool on the same database for the tests' counts. Each
 * server's connections carry application_name sb-chaos-<label>, so a test can end exactly that
 * server's backends with pg_terminate_backend.
 */
import pg from 'pg';
import type { MethodName, ParamsInput, Result } from '@switchboard/contract';
import { startServerProcess, type ServerProcess } from './server-process';

/**
 * Fast membership so a killed server is taken over within seconds (the defaults are 1 s and 5 s);
 * not faster, or a live server stalled on a busy machine is taken over too.
 */
const NODE_ENV = { SWITCHBOARD_SERVER_BEAT_MS: '250', SWITCHBOARD_SERVER_DEAD_AFTER_MS: '3000' };

/** What every server of a cluster runs with. */
export interface ClusterOptions {
  token: string;
  /** SWITCHBOARD_BUNDLE of every server. */
  bundle: string;
  /** Variables of every server, over the cluster's defaults. */
  env?: Record<string, string>;
}

/** A test server's defaults: no demo traffic, no rate limit, only errors logged. */
const TEST_SERVER_ENV = { SWITCHBOARD_DEMO: 'off', SWITCHBOARD_RATE_LIMIT_PER_S: '0', SWITCHBOARD_LOG_LEVEL: 'error', SWITCHBOARD_CHECK_RESULTS: 'on' };

/** Three tsx processes booting side by side on two busy cores have taken over 30 s. */
const SERVER_READY_TIMEOUT_MS = 90_000;

export interface ChaosServer {
  label: string;
  url: string;
  /** This process's server id (its delivery lease owner), from health.check. */
  serverId: string;
  pid: number;
  process: ServerProcess;
}

export interface RpcAnswer {
  result?: any;
  error?: { code: number; message: string; data?: { code?: string; retryable?: boolean } };
}

/** A transport failure (the server died or refused the connection): no answer at all. */
export class NoAnswer extends Error {}

/** A server process that ended without the test killing it. */
export interface UnexpectedExit {
  server: string;
  code: number | null;
  signal: string | null;
  /** The end of what it wrote to stderr. */
  stderr: string;
}

export class Cluster {
  readonly db: pg.Pool;
  private readonly started: { label: string; process: ServerProcess }[] = [];
  private readonly stopped = new Set<number>();
  private readonly killed = new Set<number>();

  private readonly token: string;
  private readonly bundle: string;
  private readonly env: Record<string, string>;

  constructor(
    readonly databaseUrl: string,
    options: ClusterOptions,
  ) {
    this.token = options.token;
    this.bundle = options.bundle;
    this.env = options.env ?? {};
    this.db = new pg.Pool({ connectionString: databaseUrl, max: 3 });
    // The chaos tests end and restart the server under this pool too; a dropped idle client must not throw.
    this.db.on('error', () => undefined);
  }

  /** `env`: this server's own variables, over the cluster's. */
  async start(label: string, env: Record<string, string> = {}): Promise<ChaosServer> {
    const url = new URL(this.databaseUrl);
    url.searchParams.set('application_name', applicationName(label));
    const proc = await startServerProcess({
      env: { ...TEST_SERVER_ENV, SWITCHBOARD_DATABASE_URL: url.toString(), SWITCHBOARD_TOKEN: this.token, SWITCHBOARD_BUNDLE: this.bundle, ...NODE_ENV, ...this.env, ...env },
      readyTimeoutMs: SERVER_READY_TIMEOUT_MS,
    });
    this.started.push({ label, process: proc });
    // A boot slower than the death timeout gets the new server taken over before its first
    // heartbeat, which registers it again: until then health.check does not list it.
    let health: RpcAnswer = {};
    let self: { server_id: string } | undefined;
    const deadline = Date.now() + 20_000;
    for (;;) {
      health = await this.rpc(proc.url, 'health.check');
      self = (health.result?.servers ?? []).find((n: { self: boolean }) => n.self);
      if (self !== undefined || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!self) throw new Error(`node ${label} lists no server of its own in health.check: ${JSON.stringify(health)}`);
    return { label, url: proc.url, serverId: self.server_id, pid: proc.child.pid!, process: proc };
  }

  /** Starts the first server (it migrates a fresh database), then the others side by side. */
  async startAll(labels: string[]): Promise<ChaosServer[]> {
    const [first, ...others] = labels;
    const firstServer = await this.start(first!);
    return [firstServer, ...(await Promise.all(others.map((l) => this.start(l))))];
  }

  async kill(server: ChaosServer): Promise<void> {
    this.killed.add(server.pid);
    this.resume(server);
    server.process.child.kill('SIGKILL');
    await server.process.exited;
  }

  /** SIGSTOP: the process keeps its sockets and leases but runs nothing, as in a long GC pause or a frozen VM. */
  pause(server: ChaosServer): void {
    this.stopped.add(server.pid);
    server.process.child.kill('SIGSTOP');
  }

  resume(server: ChaosServer): void {
    if (!this.stopped.delete(server.pid)) return;
    server.process.child.kill('SIGCONT');
  }

  alive(server: ChaosServer): boolean {
    const c = server.process.child;
    return c.exitCode === null && c.signalCode === null;
  }

  /** One JSON-RPC request; throws NoAnswer when the server gave none. */
  async rpc(url: string, method: string, params: Record<string, unknown> = {}, timeoutMs = 30_000): Promise<RpcAnswer> {
    let res: Response;
    try {
      res = await fetch(url + '/v1/rpc', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      throw new NoAnswer(`${method} on ${url}: ${(err as Error).message}`);
    }
    const text = await res.text().catch((err: Error) => {
      throw new NoAnswer(`${method} on ${url}: body cut off: ${err.message}`);
    });
    try {
      return JSON.parse(text) as RpcAnswer;
    } catch {
      return { error: { code: res.status, message: `HTTP ${res.status}: ${text.slice(0, 200)}` } };
    }
  }

  /** A batch of requests, each answered; throws NoAnswer when the server gave none. */
  async batch(url: string, requests: { method: string; params: Record<string, unknown> }[]): Promise<RpcAnswer[]> {
    const body = requests.map((r, i) => ({ jsonrpc: '2.0', id: i, method: r.method, params: r.params }));
    let res: Response;
    try {
      res = await fetch(url + '/v1/rpc', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body: JSON.stringify(body),
      });
      const answers = (await res.json()) as (RpcAnswer & { id: number })[];
      return answers.sort((x, y) => x.id - y.id);
    } catch (err) {
      throw new NoAnswer(`batch on ${url}: ${(err as Error).message}`);
    }
  }

  /** A request that must succeed: its result, typed from the contract. */
  async ok<M extends MethodName>(server: ChaosServer, method: M, params: ParamsInput<M> = {} as ParamsInput<M>): Promise<Result<M>> {
    const answer = await this.rpc(server.url, method, params as Record<string, unknown>);
    if (answer.error || answer.result === undefined) throw new Error(`${method} on node ${server.label}: ${JSON.stringify(answer.error)}`);
    return answer.result as Result<M>;
  }

  async query<R extends Record<string, unknown>>(text: string, values: unknown[] = []): Promise<R[]> {
    return (await this.db.query<R>(text, values)).rows;
  }

  /** Deliveries a server is running now (in progress under its lease). */
  async leasesHeldBy(server: ChaosServer): Promise<number> {
    const [row] = await this.query<{ n: number }>(`select count(*)::int as n from deliveries where status = 'in_progress' and lease_owner = $1`, [server.serverId]);
    return row!.n;
  }

  /** A server's backends inside a transaction now. */
  async openTransactionsOf(server: ChaosServer): Promise<number> {
    const [row] = await this.query<{ n: number }>('select count(*)::int as n from pg_stat_activity where datname = current_database() and application_name = $1 and xact_start is not null', [applicationName(server.label)]);
    return row!.n;
  }

  /** Ends every backend a server holds (pg_terminate_backend); how many. */
  async terminateConnectionsOf(server: ChaosServer): Promise<number> {
    // Only this database's: other clusters' servers of the same label may share the server.
    const rows = await this.query<{ ended: boolean }>(
      'select pg_terminate_backend(pid) as ended from pg_stat_activity where datname = current_database() and application_name = $1',
      [applicationName(server.label)],
    );
    return rows.filter((r) => r.ended).length;
  }

  /** True while at least one server process runs (a settle wait without one would only time out). */
  anyServerRunning(): boolean {
    return this.started.some(({ process: p }) => p.child.exitCode === null && p.child.signalCode === null);
  }

  /** Node processes that ended on their own (a crash), with the end of their stderr. */
  unexpectedExits(): UnexpectedExit[] {
    return this.started
      .filter(({ process: p }) => !this.killed.has(p.child.pid!) && (p.child.exitCode !== null || p.child.signalCode !== null))
      .map(({ label, process: p }) => ({ server: label, code: p.child.exitCode, signal: p.child.signalCode, stderr: p.output() }));
  }

  /** Kills every server still running and closes the pool. */
  async dispose(): Promise<void> {
    for (const { process: p } of this.started) {
      if (p.child.exitCode !== null || p.child.signalCode !== null) continue;
      this.killed.add(p.child.pid!);
      p.child.kill('SIGCONT');
      p.child.kill('SIGKILL');
      await p.exited;
    }
    await this.db.end().catch(() => undefined);
  }
}

function applicationName(label: string): string {
  return `sb-chaos-${label}`;
}
