/**
 * The one place environment variables are read. Validated at boot: a bad value stops the process
 * with a message naming the variable, instead of surfacing later as odd behaviour.
 */
import path from 'node:path';
import { z } from 'zod';

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();

const schema = z.object({
  PORT: port.default(8787),
  HOST: z.string().min(1).default('127.0.0.1'),
  SWITCHBOARD_DATA_DIR: z.string().min(1).default('./data'),
  SWITCHBOARD_DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, 'must be a PostgreSQL URL: postgres://user:password@host:5432/database')
    .optional(),
  SWITCHBOARD_TOKEN: z
    .string()
    .min(16, 'must be at least 16 characters')
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
    .optional(),
  SWITCHBOARD_BUNDLE: z.string().min(1).optional(),
  SWITCHBOARD_HEARTBEAT_INTERVAL_MS: positiveInt.min(100).default(5000),
  SWITCHBOARD_BODY_LIMIT_BYTES: positiveInt.default(1024 * 1024),
  SWITCHBOARD_RATE_LIMIT_PER_S: z.coerce.number().min(0).default(200),
  SWITCHBOARD_MAX_SUBSCRIPTIONS_PER_SOCKET: positiveInt.default(16),
  SWITCHBOARD_WS_PING_INTERVAL_MS: positiveInt.min(100).default(15000),
  SWITCHBOARD_WS_MAX_BUFFERED_BYTES: positiveInt.min(1024).default(1024 * 1024),
  SWITCHBOARD_DEMO: z.enum(['auto', 'off', 'steady']).default('auto'),
  SWITCHBOARD_DEMO_RATE_PER_MIN: z.coerce.number().min(0).default(6),
  SWITCHBOARD_MODEL_PROVIDER: z.enum(['scripted', 'openai']).default('scripted'),
  SWITCHBOARD_OPENAI_BASE_URL: z.string().url().optional(),
  SWITCHBOARD_OPENAI_API_KEY: z.string().optional(),
  SWITCHBOARD_OPENAI_MODEL: z.string().optional(),
  SWITCHBOARD_CONTAINERS: z.enum(['local', 'docker']).default('local'),
  SWITCHBOARD_DOCKER_SOCKET: z.string().default('/var/run/docker.sock'),
  SWITCHBOARD_DOCKER_IMAGE: z.string().min(1).default('busybox:1.36'),
  SWITCHBOARD_CONTAINER_COMMAND: z.string().min(1).optional(),
  SWITCHBOARD_CONTAINER_STOP_TIMEOUT_MS: positiveInt.min(100).default(5000),
  SWITCHBOARD_CONTAINERS_MAX: positiveInt.default(128),
  SWITCHBOARD_RESET_DRAIN_TIMEOUT_MS: positiveInt.min(10).default(10000),
  SWITCHBOARD_NODE_BEAT_MS: positiveInt.min(50).default(1000),
  SWITCHBOARD_NODE_DEAD_AFTER_MS: positiveInt.min(200).default(5000),
  SWITCHBOARD_DISPATCH_CONCURRENCY: positiveInt.max(1024).default(64),
  SWITCHBOARD_WEB_DIST: z.string().optional(),
  SWITCHBOARD_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  SWITCHBOARD_HTTP_HEADERS_TIMEOUT_MS: positiveInt.min(100).default(10_000),
  SWITCHBOARD_HTTP_REQUEST_TIMEOUT_MS: positiveInt.min(100).default(30_000),
  SWITCHBOARD_HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt.min(100).default(5_000),
  SWITCHBOARD_HTTP_MAX_CONNECTIONS: positiveInt.default(4096),
  SWITCHBOARD_TEST_FAILPOINT: z
    .string()
    .regex(/^kill-after-effect:[1-9][0-9]*$/, 'must be kill-after-effect:N (crash tests only)')
    .optional(),
});

export type Env = z.output<typeof schema>;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  /** PostgreSQL instead of the SQLite store in dataDir. */
  databaseUrl?: string;
  token?: string;
  bundlePath?: string;
  heartbeatIntervalMs: number;
  bodyLimitBytes: number;
  rateLimitPerSecond: number;
  maxSubscriptionsPerSocket: number;
  wsPingIntervalMs: number;
  /** Unsent bytes per WebSocket past which its requests are no longer read (and heartbeats skipped). */
  wsMaxBufferedBytes: number;
  demo: 'auto' | 'off' | 'steady';
  demoRatePerMinute: number;
  modelProvider: 'scripted' | 'openai';
  openai: { baseUrl?: string; apiKey?: string; model?: string };
  containers: 'local' | 'docker';
  dockerSocket: string;
  dockerImage: string;
  /** Shell command of each managed entity container; a built-in idle process when unset. */
  containerCommand?: string;
  containerStopTimeoutMs: number;
  maxContainers: number;
  /** How long a reset waits for running handlers before it reports quiescence as failed. */
  resetDrainTimeoutMs: number;
  /** This process as a node of a shared database: heartbeat interval, and the silence after which a node is dead and taken over. */
  node: { beatMs: number; deadAfterMs: number };
  /** Handlers this process runs at once (the dispatcher's concurrency). */
  dispatchConcurrency: number;
  webDist: string;
  logLevel: Env['SWITCHBOARD_LOG_LEVEL'];
  http: {
    /** Time to receive a request's headers. */
    headersTimeoutMs: number;
    /** Time to receive a whole request, headers and body. */
    requestTimeoutMs: number;
    /** An idle keep-alive connection is closed after this. */
    keepAliveTimeoutMs: number;
    /** Open connections (HTTP and WebSocket); further ones are refused. */
    maxConnections: number;
  };
  /** Crash tests only: SIGKILL this process after the Nth keyed mutation's effect, before its answer. */
  killAfterEffect?: number;
}

export class ConfigError extends Error {}

/** Never echoed back in an error message. */
const SECRET_VARIABLES = new Set(['SWITCHBOARD_TOKEN', 'SWITCHBOARD_OPENAI_API_KEY', 'SWITCHBOARD_DATABASE_URL']);

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // `PORT=` in an env file means "not set", not 0 (which z.coerce.number would make of it).
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => {
      const name = i.path.join('.');
      const value = present[name];
      const shown = value === undefined || SECRET_VARIABLES.has(name) ? '' : ` (got ${JSON.stringify(value.slice(0, 80))})`;
      return `  ${name}: ${i.message}${shown}`;
    });
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  // A live node must get several beats in before it could be judged dead, or it would be taken over while running.
  if (e.SWITCHBOARD_NODE_DEAD_AFTER_MS < 2 * e.SWITCHBOARD_NODE_BEAT_MS) {
    throw new ConfigError(
      `invalid configuration:\n  SWITCHBOARD_NODE_DEAD_AFTER_MS: must be at least twice SWITCHBOARD_NODE_BEAT_MS (got ${e.SWITCHBOARD_NODE_DEAD_AFTER_MS} with a beat of ${e.SWITCHBOARD_NODE_BEAT_MS})`,
    );
  }
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.SWITCHBOARD_DATA_DIR),
    databaseUrl: e.SWITCHBOARD_DATABASE_URL,
    token: e.SWITCHBOARD_TOKEN,
    bundlePath: e.SWITCHBOARD_BUNDLE ? path.resolve(e.SWITCHBOARD_BUNDLE) : undefined,
    heartbeatIntervalMs: e.SWITCHBOARD_HEARTBEAT_INTERVAL_MS,
    bodyLimitBytes: e.SWITCHBOARD_BODY_LIMIT_BYTES,
    rateLimitPerSecond: e.SWITCHBOARD_RATE_LIMIT_PER_S,
    maxSubscriptionsPerSocket: e.SWITCHBOARD_MAX_SUBSCRIPTIONS_PER_SOCKET,
    wsPingIntervalMs: e.SWITCHBOARD_WS_PING_INTERVAL_MS,
    wsMaxBufferedBytes: e.SWITCHBOARD_WS_MAX_BUFFERED_BYTES,
    demo: e.SWITCHBOARD_DEMO,
    demoRatePerMinute: e.SWITCHBOARD_DEMO_RATE_PER_MIN,
    modelProvider: e.SWITCHBOARD_MODEL_PROVIDER,
    openai: { baseUrl: e.SWITCHBOARD_OPENAI_BASE_URL, apiKey: e.SWITCHBOARD_OPENAI_API_KEY, model: e.SWITCHBOARD_OPENAI_MODEL },
    containers: e.SWITCHBOARD_CONTAINERS,
    dockerSocket: e.SWITCHBOARD_DOCKER_SOCKET,
    dockerImage: e.SWITCHBOARD_DOCKER_IMAGE,
    containerCommand: e.SWITCHBOARD_CONTAINER_COMMAND,
    containerStopTimeoutMs: e.SWITCHBOARD_CONTAINER_STOP_TIMEOUT_MS,
    maxContainers: e.SWITCHBOARD_CONTAINERS_MAX,
    resetDrainTimeoutMs: e.SWITCHBOARD_RESET_DRAIN_TIMEOUT_MS,
    node: { beatMs: e.SWITCHBOARD_NODE_BEAT_MS, deadAfterMs: e.SWITCHBOARD_NODE_DEAD_AFTER_MS },
    dispatchConcurrency: e.SWITCHBOARD_DISPATCH_CONCURRENCY,
    webDist: path.resolve(e.SWITCHBOARD_WEB_DIST ?? 'dist/web'),
    logLevel: e.SWITCHBOARD_LOG_LEVEL,
    http: {
      headersTimeoutMs: Math.min(e.SWITCHBOARD_HTTP_HEADERS_TIMEOUT_MS, e.SWITCHBOARD_HTTP_REQUEST_TIMEOUT_MS),
      requestTimeoutMs: e.SWITCHBOARD_HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.SWITCHBOARD_HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.SWITCHBOARD_HTTP_MAX_CONNECTIONS,
    },
    killAfterEffect: e.SWITCHBOARD_TEST_FAILPOINT ? Number(e.SWITCHBOARD_TEST_FAILPOINT.split(':')[1]) : undefined,
  };
}
