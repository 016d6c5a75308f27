/**
 * The one place environment variables are read. Validated at boot: a bad value stops the process
 * with a message naming the variable, instead of surfacing later as odd behaviour.
 */
import path from 'node:path';
import { z } from 'zod';
import { ROLES, isRole, type Role } from '@switchboard/contract';
import { LONGEST_INCIDENT_LOOK_BACK_DAYS, type RetentionSettings } from '@switchboard/runtime';
import type { StoreOptions } from '@switchboard/store';

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().positive();
/** Days to keep a kind of record; 0 keeps it forever. */
const retentionDays = z.coerce.number().int().min(0).max(36_500);

const schema = z.object({
  PORT: port.default(8787),
  HOST: z.string().min(1).default('127.0.0.1'),
  SWITCHBOARD_DATA_DIR: z.string().min(1).default('./data'),
  SWITCHBOARD_SQLITE_BUSY_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(5000),
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
  SWITCHBOARD_SERVER_BEAT_MS: positiveInt.min(50).default(1000),
  SWITCHBOARD_SERVER_DEAD_AFTER_MS: positiveInt.min(200).default(5000),
  SWITCHBOARD_DISPATCH_CONCURRENCY: positiveInt.max(1024).default(64),
  SWITCHBOARD_READER_THREADS: z.coerce.number().int().min(0).max(16).default(2),
  SWITCHBOARD_READER_THREADS_WHEN: z.enum(['busy', 'always']).default('busy'),
  SWITCHBOARD_WEB_DIST: z.string().optional(),
  SWITCHBOARD_METRICS: z.enum(['on', 'off']).default('on'),
  SWITCHBOARD_METRICS_PORT: port.optional(),
  SWITCHBOARD_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  SWITCHBOARD_CHECK_RESULTS: z.enum(['on', 'off']).default('off'),
  SWITCHBOARD_HTTP_HEADERS_TIMEOUT_MS: positiveInt.min(100).default(10_000),
  SWITCHBOARD_HTTP_REQUEST_TIMEOUT_MS: positiveInt.min(100).default(30_000),
  SWITCHBOARD_HTTP_KEEP_ALIVE_TIMEOUT_MS: positiveInt.min(100).default(5_000),
  SWITCHBOARD_HTTP_MAX_CONNECTIONS: positiveInt.default(4096),
  SWITCHBOARD_OIDC_ISSUER: z.string().optional(),
  SWITCHBOARD_OIDC_CLIENT_ID: z.string().optional(),
  SWITCHBOARD_OIDC_CLIENT_SECRET: z.string().optional(),
  SWITCHBOARD_OIDC_REDIRECT_URL: z.string().optional(),
  SWITCHBOARD_OIDC_SCOPES: z.string().optional(),
  SWITCHBOARD_OIDC_ROLE_CLAIM: z.string().optional(),
  SWITCHBOARD_OIDC_ROLE_MAP: z.string().optional(),
  SWITCHBOARD_OIDC_DEFAULT_ROLE: z.string().optional(),
  SWITCHBOARD_OIDC_REQUIRED_CLAIM: z.string().optional(),
  SWITCHBOARD_OIDC_BUTTON_LABEL: z.string().max(80).optional(),
  SWITCHBOARD_TRACE_URL_TEMPLATE: z
    .string()
    .regex(/^https?:\/\/\S*\{trace_id\}\S*$/, 'must be an http(s) URL containing {trace_id}, e.g. https://jaeger.example/trace/{trace_id}')
    .optional(),
  SWITCHBOARD_PUBLIC_URL: z.string().url().optional(),
  SWITCHBOARD_ALERT_MAX_ATTEMPTS: positiveInt.max(100).default(8),
  SWITCHBOARD_ALERT_BACKOFF_MS: positiveInt.min(10).default(2_000),
  SWITCHBOARD_ALERT_LEASE_MS: positiveInt.min(1_000).default(20_000),
  SWITCHBOARD_ALERT_EVALUATE_MS: positiveInt.min(100).default(5_000),
  SWITCHBOARD_RETENTION_HISTORY_DAYS: retentionDays.default(30),
  SWITCHBOARD_RETENTION_DEAD_LETTER_DAYS: retentionDays.default(90),
  SWITCHBOARD_RETENTION_INCIDENT_DAYS: retentionDays.default(400),
  SWITCHBOARD_RETENTION_AUDIT_DAYS: retentionDays.default(0),
  SWITCHBOARD_RETENTION_INTERVAL_S: positiveInt.max(7 * 86_400).default(3_600),
  SWITCHBOARD_RETENTION_BATCH_SIZE: positiveInt.max(500).default(200),
  SWITCHBOARD_RETENTION_MAX_ROWS_PER_S: positiveInt.min(10).default(5_000),
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
  /** How long a SQLite write waits for another process's write lock before it fails as STORE_BUSY. */
  sqliteBusyTimeoutMs: number;
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
  /** This process as a server of a shared database: heartbeat interval, and the silence after which a server is dead and taken over. */
  server: { beatMs: number; deadAfterMs: number };
  /** Old variable names that were set and read under their new name: the server warns of each at boot. */
  renamedVariables: { old: string; current: string }[];
  /** Handlers this process runs at once (the dispatcher's concurrency). */
  dispatchConcurrency: number;
  /** Threads that read list pages beside the main thread, on SQLite (0: the main thread reads them). */
  readerThreads: number;
  /**
   * `busy`: a page goes to a reader thread only while the main thread has other calls or deliveries
   * under way (a lone caller is answered sooner on the main thread); `always`: every page.
   */
  readerThreadsWhen: 'busy' | 'always';
  webDist: string;
  /**
   * Prometheus metrics at GET /metrics (on by default); `port` adds a listener on HOST that serves
   * only /metrics, for scrapers kept off the API's port.
   */
  metrics: { enabled: boolean; port?: number };
  logLevel: Env['SWITCHBOARD_LOG_LEVEL'];
  /** Tests and development: every method result is checked against its contract schema (a mismatch answers INTERNAL). */
  checkResults: boolean;
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
  /** Signing in with OpenID Connect; undefined when not configured (token paste only). */
  oidc?: OidcConfig;
  /** Where the console links a trace id: a URL with `{trace_id}` in it (a Jaeger or Tempo page). */
  traceUrlTemplate?: string;
  /** Where people reach the console: alert notices link to it (absolute) when set. */
  publicUrl?: string;
  /** Alert notices: attempts before failed, first retry delay, claim lease, condition evaluation interval. */
  alerts: { maxAttempts: number; backoffMs: number; leaseMs: number; evaluateMs: number };
  /** How long settled history, dead letters, incident counts and audit records are kept, and a pass's pace (ADR 0018; docs/retention.md). */
  retention: RetentionSettings;
  /** Crash tests only: SIGKILL this process after the Nth keyed mutation's effect, before its answer. */
  killAfterEffect?: number;
}

/** The callback path the redirect URL must point at (the route the server serves). */
export const OIDC_CALLBACK_PATH = '/v1/auth/oidc/callback';

export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Registered at the provider; its origin is also where sign-out returns to. */
  redirectUrl: string;
  /** Space-separated scopes requested; `openid` is always among them. */
  scopes: string;
  /** The claim whose values map to roles (e.g. `groups`). */
  roleClaim: string;
  /** Claim value -> role; a person holding several mapped values gets the highest role. */
  roleMap: ReadonlyMap<string, Role>;
  /** The role of a person with no mapped value; without one such a person is refused. */
  defaultRole?: Role;
  /** Only people whose claim holds this value may sign in. */
  requiredClaim?: { name: string; value: string };
  /** The console's sign-in button. */
  buttonLabel: string;
}

export class ConfigError extends Error {}

/** Never echoed back in an error message. */
const SECRET_VARIABLES = new Set(['SWITCHBOARD_TOKEN', 'SWITCHBOARD_OPENAI_API_KEY', 'SWITCHBOARD_DATABASE_URL', 'SWITCHBOARD_OIDC_CLIENT_SECRET']);

/** Variables renamed since deployments set them (ADR 0017): old name → current name. */
const RENAMED_VARIABLES: Record<string, string> = Object.fromEntries(
  ['BEAT_MS', 'DEAD_AFTER_MS'].map((setting) => [`SWITCHBOARD_NODE_${setting}`, `SWITCHBOARD_SERVER_${setting}`]),
);

/** Where the store lives, as Store.open takes it: PostgreSQL when a URL is set, else the SQLite folder. */
export function storeLocation(config: Config): StoreOptions {
  return config.databaseUrl ? { databaseUrl: config.databaseUrl } : { dataDir: config.dataDir, sqliteBusyTimeoutMs: config.sqliteBusyTimeoutMs };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // `PORT=` in an env file means "not set", not 0 (which z.coerce.number would make of it).
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''));
  // An old name still counts, unless the current one is set too (then the current one wins).
  const renamedVariables: Config['renamedVariables'] = [];
  for (const [old, current] of Object.entries(RENAMED_VARIABLES)) {
    if (present[old] === undefined) continue;
    renamedVariables.push({ old, current });
    present[current] ??= present[old];
    delete present[old];
  }
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
  // A live server must get several beats in before it could be judged dead, or it would be taken over while running.
  if (e.SWITCHBOARD_SERVER_DEAD_AFTER_MS < 2 * e.SWITCHBOARD_SERVER_BEAT_MS) {
    throw new ConfigError(
      `invalid configuration:\n  SWITCHBOARD_SERVER_DEAD_AFTER_MS: must be at least twice SWITCHBOARD_SERVER_BEAT_MS (got ${e.SWITCHBOARD_SERVER_DEAD_AFTER_MS} with a beat of ${e.SWITCHBOARD_SERVER_BEAT_MS})`,
    );
  }
  if (e.SWITCHBOARD_METRICS_PORT !== undefined && e.SWITCHBOARD_METRICS === 'off') {
    throw new ConfigError('invalid configuration:\n  SWITCHBOARD_METRICS_PORT: set, but SWITCHBOARD_METRICS is off (unset one of them)');
  }
  if (e.SWITCHBOARD_METRICS_PORT !== undefined && e.SWITCHBOARD_METRICS_PORT !== 0 && e.SWITCHBOARD_METRICS_PORT === e.PORT) {
    throw new ConfigError(`invalid configuration:\n  SWITCHBOARD_METRICS_PORT: must differ from PORT (both ${e.PORT}); /metrics is served on PORT anyway`);
  }
  const retentionProblems = retentionProblemsOf(e);
  if (retentionProblems.length > 0) throw new ConfigError(`invalid configuration:\n${retentionProblems.map((p) => `  ${p}`).join('\n')}`);
  const oidc = oidcConfigOf(e);
  return {
    renamedVariables,
    port: e.PORT,
    host: e.HOST,
    dataDir: path.resolve(e.SWITCHBOARD_DATA_DIR),
    sqliteBusyTimeoutMs: e.SWITCHBOARD_SQLITE_BUSY_TIMEOUT_MS,
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
    server: { beatMs: e.SWITCHBOARD_SERVER_BEAT_MS, deadAfterMs: e.SWITCHBOARD_SERVER_DEAD_AFTER_MS },
    dispatchConcurrency: e.SWITCHBOARD_DISPATCH_CONCURRENCY,
    readerThreads: e.SWITCHBOARD_READER_THREADS,
    readerThreadsWhen: e.SWITCHBOARD_READER_THREADS_WHEN,
    webDist: path.resolve(e.SWITCHBOARD_WEB_DIST ?? 'dist/web'),
    metrics: { enabled: e.SWITCHBOARD_METRICS === 'on', port: e.SWITCHBOARD_METRICS_PORT },
    logLevel: e.SWITCHBOARD_LOG_LEVEL,
    checkResults: e.SWITCHBOARD_CHECK_RESULTS === 'on',
    http: {
      headersTimeoutMs: Math.min(e.SWITCHBOARD_HTTP_HEADERS_TIMEOUT_MS, e.SWITCHBOARD_HTTP_REQUEST_TIMEOUT_MS),
      requestTimeoutMs: e.SWITCHBOARD_HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.SWITCHBOARD_HTTP_KEEP_ALIVE_TIMEOUT_MS,
      maxConnections: e.SWITCHBOARD_HTTP_MAX_CONNECTIONS,
    },
    oidc,
    traceUrlTemplate: e.SWITCHBOARD_TRACE_URL_TEMPLATE,
    publicUrl: e.SWITCHBOARD_PUBLIC_URL,
    alerts: { maxAttempts: e.SWITCHBOARD_ALERT_MAX_ATTEMPTS, backoffMs: e.SWITCHBOARD_ALERT_BACKOFF_MS, leaseMs: e.SWITCHBOARD_ALERT_LEASE_MS, evaluateMs: e.SWITCHBOARD_ALERT_EVALUATE_MS },
    retention: {
      historyDays: e.SWITCHBOARD_RETENTION_HISTORY_DAYS,
      deadLetterDays: e.SWITCHBOARD_RETENTION_DEAD_LETTER_DAYS,
      incidentRollupDays: e.SWITCHBOARD_RETENTION_INCIDENT_DAYS,
      auditDays: e.SWITCHBOARD_RETENTION_AUDIT_DAYS,
      intervalMs: e.SWITCHBOARD_RETENTION_INTERVAL_S * 1000,
      batchSize: e.SWITCHBOARD_RETENTION_BATCH_SIZE,
      maxRowsPerSecond: e.SWITCHBOARD_RETENTION_MAX_ROWS_PER_S,
    },
    killAfterEffect: e.SWITCHBOARD_TEST_FAILPOINT ? Number(e.SWITCHBOARD_TEST_FAILPOINT.split(':')[1]) : undefined,
  };
}

/**
 * Settings that are each valid but not together: a dead letter's own setting is the longer one
 * (it keeps a run history would remove), and the incident rollup must outlive the longest
 * incident look-back, or a window would count hours that were removed.
 */
function retentionProblemsOf(e: Env): string[] {
  const problems: string[] = [];
  const history = e.SWITCHBOARD_RETENTION_HISTORY_DAYS;
  const deadLetters = e.SWITCHBOARD_RETENTION_DEAD_LETTER_DAYS;
  const incidents = e.SWITCHBOARD_RETENTION_INCIDENT_DAYS;
  if (history > 0 && deadLetters > 0 && deadLetters < history) {
    problems.push(`SWITCHBOARD_RETENTION_DEAD_LETTER_DAYS: must be 0 (keep forever) or at least SWITCHBOARD_RETENTION_HISTORY_DAYS (got ${deadLetters} with history ${history})`);
  }
  if (incidents > 0 && incidents <= LONGEST_INCIDENT_LOOK_BACK_DAYS) {
    problems.push(`SWITCHBOARD_RETENTION_INCIDENT_DAYS: must be 0 (keep forever) or more than ${LONGEST_INCIDENT_LOOK_BACK_DAYS}, the longest incident look-back (got ${incidents})`);
  }
  return problems;
}

const OIDC_REQUIRED = ['SWITCHBOARD_OIDC_ISSUER', 'SWITCHBOARD_OIDC_CLIENT_ID', 'SWITCHBOARD_OIDC_CLIENT_SECRET', 'SWITCHBOARD_OIDC_REDIRECT_URL'] as const;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * OpenID Connect is on when any SWITCHBOARD_OIDC_* variable is set, and then must be complete: a
 * half-configured sign-in would otherwise surface as a failing button, not as a clear start error.
 */
function oidcConfigOf(e: Env): OidcConfig | undefined {
  const set = (Object.keys(e) as (keyof Env)[]).filter((k) => k.startsWith('SWITCHBOARD_OIDC_') && e[k] !== undefined);
  if (set.length === 0) return undefined;
  const problems: string[] = [];
  for (const name of OIDC_REQUIRED) {
    if (e[name] === undefined) problems.push(`  ${name}: required when OpenID Connect is configured (${set.join(', ')} set)`);
  }
  const issuer = e.SWITCHBOARD_OIDC_ISSUER === undefined ? undefined : checkedWebUrl(e.SWITCHBOARD_OIDC_ISSUER, 'SWITCHBOARD_OIDC_ISSUER', problems);
  if (issuer && (issuer.search || issuer.hash)) problems.push(`  SWITCHBOARD_OIDC_ISSUER: must be the issuer URL without a query or fragment (got ${JSON.stringify(e.SWITCHBOARD_OIDC_ISSUER)})`);
  const redirect = e.SWITCHBOARD_OIDC_REDIRECT_URL === undefined ? undefined : checkedWebUrl(e.SWITCHBOARD_OIDC_REDIRECT_URL, 'SWITCHBOARD_OIDC_REDIRECT_URL', problems);
  if (redirect && (redirect.pathname !== OIDC_CALLBACK_PATH || redirect.search || redirect.hash)) {
    problems.push(`  SWITCHBOARD_OIDC_REDIRECT_URL: must end in ${OIDC_CALLBACK_PATH}, e.g. https://switchboard.example.com${OIDC_CALLBACK_PATH} (got ${JSON.stringify(e.SWITCHBOARD_OIDC_REDIRECT_URL)})`);
  }
  const roleMap = parseRoleMap(e.SWITCHBOARD_OIDC_ROLE_MAP, problems);
  const defaultRole = e.SWITCHBOARD_OIDC_DEFAULT_ROLE;
  if (defaultRole !== undefined && !isRole(defaultRole)) {
    problems.push(`  SWITCHBOARD_OIDC_DEFAULT_ROLE: must be one of ${ROLES.join(', ')} (got ${JSON.stringify(defaultRole)})`);
  }
  if (!e.SWITCHBOARD_OIDC_ROLE_MAP && defaultRole === undefined) {
    problems.push('  SWITCHBOARD_OIDC_ROLE_MAP: required unless SWITCHBOARD_OIDC_DEFAULT_ROLE is set (otherwise nobody could sign in), e.g. "sb-admins=admin,sb-operators=operator"');
  }
  let requiredClaim: OidcConfig['requiredClaim'];
  if (e.SWITCHBOARD_OIDC_REQUIRED_CLAIM !== undefined) {
    const eq = e.SWITCHBOARD_OIDC_REQUIRED_CLAIM.indexOf('=');
    const name = e.SWITCHBOARD_OIDC_REQUIRED_CLAIM.slice(0, eq).trim();
    const value = e.SWITCHBOARD_OIDC_REQUIRED_CLAIM.slice(eq + 1).trim();
    if (eq < 0 || !name || !value) {
      problems.push(`  SWITCHBOARD_OIDC_REQUIRED_CLAIM: must be claim=value, e.g. groups=switchboard (got ${JSON.stringify(e.SWITCHBOARD_OIDC_REQUIRED_CLAIM)})`);
    } else requiredClaim = { name, value };
  }
  const scopes = new Set((e.SWITCHBOARD_OIDC_SCOPES ?? 'openid profile email').split(/\s+/).filter(Boolean));
  scopes.add('openid');
  if (problems.length) throw new ConfigError(`invalid configuration:\n${problems.join('\n')}`);
  return {
    issuer: e.SWITCHBOARD_OIDC_ISSUER!,
    clientId: e.SWITCHBOARD_OIDC_CLIENT_ID!,
    clientSecret: e.SWITCHBOARD_OIDC_CLIENT_SECRET!,
    redirectUrl: redirect!.href,
    scopes: [...scopes].join(' '),
    roleClaim: e.SWITCHBOARD_OIDC_ROLE_CLAIM?.trim() || 'groups',
    roleMap,
    defaultRole: defaultRole as Role | undefined,
    requiredClaim,
    buttonLabel: e.SWITCHBOARD_OIDC_BUTTON_LABEL?.trim() || 'Sign in with single sign-on',
  };
}

/** An https URL, or http on this machine (development and tests); adds a problem line otherwise. */
function checkedWebUrl(value: string, name: string, problems: string[]): URL | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    problems.push(`  ${name}: must be a URL (got ${JSON.stringify(value.slice(0, 80))})`);
    return undefined;
  }
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  if (!secure) {
    problems.push(`  ${name}: must be an https URL (http only for localhost) (got ${JSON.stringify(value.slice(0, 80))})`);
    return undefined;
  }
  return url;
}

/**
 * "value=role,value=role", split at each pair's last "=" (a group name may hold one), or a JSON
 * object {"value": "role"} for values that contain commas (LDAP distinguished names).
 */
function parseRoleMap(value: string | undefined, problems: string[]): Map<string, Role> {
  const map = new Map<string, Role>();
  if (value === undefined) return map;
  let pairs: [string, unknown][];
  if (value.trim().startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      pairs = Object.entries(parsed);
    } catch {
      problems.push('  SWITCHBOARD_OIDC_ROLE_MAP: starts with "{" but is not a JSON object of claim value to role');
      return map;
    }
  } else {
    pairs = value
      .split(',')
      .map((pair) => pair.trim())
      .filter(Boolean)
      .map((pair) => {
        const eq = pair.lastIndexOf('=');
        return eq < 0 ? [pair, undefined] : [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
      });
  }
  for (const [claimValue, role] of pairs) {
    if (!claimValue || !isRole(role)) {
      problems.push(`  SWITCHBOARD_OIDC_ROLE_MAP: each entry must be claimvalue=role with a role among ${ROLES.join(', ')} (got ${JSON.stringify(`${claimValue}=${String(role ?? '')}`)})`);
      continue;
    }
    map.set(claimValue, role);
  }
  if (pairs.length === 0) problems.push('  SWITCHBOARD_OIDC_ROLE_MAP: holds no entry; e.g. "sb-admins=admin,sb-operators=operator"');
  return map;
}
