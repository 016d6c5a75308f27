/** loadConfig: defaults, parsing, and errors that name the variable at fault. */
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../src/config';

function errorOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('expected loadConfig to throw');
}

describe('loadConfig', () => {
  test('defaults with an empty environment', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 8787,
      host: '127.0.0.1',
      dataDir: path.resolve('./data'),
      heartbeatIntervalMs: 5000,
      bodyLimitBytes: 1024 * 1024,
      rateLimitPerSecond: 200,
      maxSubscriptionsPerSocket: 16,
      wsPingIntervalMs: 15000,
      logLevel: 'info',
    });
    expect(config.token).toBeUndefined();
  });

  test('values are parsed from strings', () => {
    const config = loadConfig({
      PORT: '9000',
      SWITCHBOARD_HEARTBEAT_INTERVAL_MS: '150',
      SWITCHBOARD_RATE_LIMIT_PER_S: '0',
      SWITCHBOARD_DATA_DIR: '/tmp/sb-data',
      SWITCHBOARD_SQLITE_BUSY_TIMEOUT_MS: '250',
      SWITCHBOARD_TOKEN: 'sbk_a_long_enough_token_value',
    });
    expect(config).toMatchObject({ port: 9000, heartbeatIntervalMs: 150, rateLimitPerSecond: 0, dataDir: '/tmp/sb-data', sqliteBusyTimeoutMs: 250, token: 'sbk_a_long_enough_token_value' });
  });

  test('an empty value counts as unset, not as 0', () => {
    expect(loadConfig({ PORT: '', SWITCHBOARD_RATE_LIMIT_PER_S: ' ' })).toMatchObject({ port: 8787, rateLimitPerSecond: 200 });
  });

  test.each([
    ['PORT', 'eighty'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['SWITCHBOARD_HEARTBEAT_INTERVAL_MS', '50'],
    ['SWITCHBOARD_HEARTBEAT_INTERVAL_MS', '1.5'],
    ['SWITCHBOARD_BODY_LIMIT_BYTES', '0'],
    ['SWITCHBOARD_RATE_LIMIT_PER_S', '-3'],
    ['SWITCHBOARD_MAX_SUBSCRIPTIONS_PER_SOCKET', 'many'],
    ['SWITCHBOARD_WS_PING_INTERVAL_MS', '10'],
    ['SWITCHBOARD_LOG_LEVEL', 'loud'],
    ['SWITCHBOARD_DEMO', 'sometimes'],
    ['SWITCHBOARD_OPENAI_BASE_URL', 'not a url'],
    ['SWITCHBOARD_SERVER_BEAT_MS', '10'],
    ['SWITCHBOARD_SERVER_DEAD_AFTER_MS', 'soon'],
    ['SWITCHBOARD_DISPATCH_CONCURRENCY', '0'],
    ['SWITCHBOARD_DISPATCH_CONCURRENCY', '2000'],
    ['SWITCHBOARD_READER_THREADS', '-1'],
    ['SWITCHBOARD_READER_THREADS', '17'],
    ['SWITCHBOARD_READER_THREADS', 'two'],
    ['SWITCHBOARD_SQLITE_BUSY_TIMEOUT_MS', '-1'],
    ['SWITCHBOARD_SQLITE_BUSY_TIMEOUT_MS', '0.5'],
  ])('%s=%j is refused with a message naming the variable and the value', (name, value) => {
    const message = errorOf({ [name]: value });
    expect(message).toContain('invalid configuration');
    expect(message).toContain(`${name}:`);
    expect(message).toContain(JSON.stringify(value));
  });

  test('every bad variable is reported at once', () => {
    const message = errorOf({ PORT: 'x', SWITCHBOARD_LOG_LEVEL: 'loud' });
    expect(message).toContain('PORT:');
    expect(message).toContain('SWITCHBOARD_LOG_LEVEL:');
  });

  test('a bad SWITCHBOARD_TOKEN is named but its value is never echoed', () => {
    for (const value of ['short', 'has spaces in a long token value']) {
      const message = errorOf({ SWITCHBOARD_TOKEN: value });
      expect(message).toContain('SWITCHBOARD_TOKEN:');
      expect(message).not.toContain(value);
    }
  });

  test('SWITCHBOARD_DATABASE_URL selects PostgreSQL; a value that is not a PostgreSQL URL is named but never echoed (it may hold a password)', () => {
    const url = 'postgres://switchboard:secret@127.0.0.1:5432/switchboard';
    expect(loadConfig({ SWITCHBOARD_DATABASE_URL: url }).databaseUrl).toBe(url);
    expect(loadConfig({}).databaseUrl).toBeUndefined();
    for (const value of ['mysql://user:secret@host/db', 'switchboard:secret@localhost']) {
      const message = errorOf({ SWITCHBOARD_DATABASE_URL: value });
      expect(message).toContain('SWITCHBOARD_DATABASE_URL:');
      expect(message).not.toContain('secret');
    }
  });

  test('the trace UI URL template: unset by default; an http(s) URL with {trace_id}, or refused naming the variable', () => {
    expect(loadConfig({}).traceUrlTemplate).toBeUndefined();
    expect(loadConfig({ SWITCHBOARD_TRACE_URL_TEMPLATE: 'https://jaeger.example/trace/{trace_id}' }).traceUrlTemplate).toBe('https://jaeger.example/trace/{trace_id}');
    for (const bad of ['https://jaeger.example/trace/', 'javascript:alert({trace_id})', 'jaeger.example/{trace_id}']) {
      expect(errorOf({ SWITCHBOARD_TRACE_URL_TEMPLATE: bad })).toContain('SWITCHBOARD_TRACE_URL_TEMPLATE: must be an http(s) URL containing {trace_id}');
    }
  });

  test('reader threads: 2 by default, 0 to read on the main thread', () => {
    expect(loadConfig({}).readerThreads).toBe(2);
    expect(loadConfig({ SWITCHBOARD_READER_THREADS: '0' }).readerThreads).toBe(0);
    expect(loadConfig({ SWITCHBOARD_READER_THREADS: '4' }).readerThreads).toBe(4);
  });

  test('reader threads take pages while the main thread is busy by default, or always; anything else is refused', () => {
    expect(loadConfig({}).readerThreadsWhen).toBe('busy');
    expect(loadConfig({ SWITCHBOARD_READER_THREADS_WHEN: 'always' }).readerThreadsWhen).toBe('always');
    expect(errorOf({ SWITCHBOARD_READER_THREADS_WHEN: 'idle' })).toContain('SWITCHBOARD_READER_THREADS_WHEN');
  });

  test('handlers at once: 64 by default, or as set', () => {
    expect(loadConfig({}).dispatchConcurrency).toBe(64);
    expect(loadConfig({ SWITCHBOARD_DISPATCH_CONCURRENCY: '8' }).dispatchConcurrency).toBe(8);
  });

  test('server heartbeat and death: 1 s and 5 s by default; a death shorter than two beats is refused, naming both', () => {
    expect(loadConfig({}).server).toEqual({ beatMs: 1000, deadAfterMs: 5000 });
    expect(loadConfig({ SWITCHBOARD_SERVER_BEAT_MS: '250', SWITCHBOARD_SERVER_DEAD_AFTER_MS: '2000' }).server).toEqual({ beatMs: 250, deadAfterMs: 2000 });
    const message = errorOf({ SWITCHBOARD_SERVER_BEAT_MS: '1000', SWITCHBOARD_SERVER_DEAD_AFTER_MS: '1500' });
    expect(message).toContain('SWITCHBOARD_SERVER_DEAD_AFTER_MS:');
    expect(message).toContain('SWITCHBOARD_SERVER_BEAT_MS');
  });

  test('the heartbeat variables under their old SWITCHBOARD_NODE_* names: read, and listed to warn of; the new name wins', () => {
    const oldName = (setting: string) => `SWITCHBOARD_NODE_${setting}`;
    expect(loadConfig({}).renamedVariables).toEqual([]);
    const config = loadConfig({ [oldName('BEAT_MS')]: '250', [oldName('DEAD_AFTER_MS')]: '2000' });
    expect(config.server).toEqual({ beatMs: 250, deadAfterMs: 2000 });
    expect(config.renamedVariables).toEqual([
      { old: oldName('BEAT_MS'), current: 'SWITCHBOARD_SERVER_BEAT_MS' },
      { old: oldName('DEAD_AFTER_MS'), current: 'SWITCHBOARD_SERVER_DEAD_AFTER_MS' },
    ]);
    expect(loadConfig({ [oldName('BEAT_MS')]: '250', SWITCHBOARD_SERVER_BEAT_MS: '300' }).server.beatMs).toBe(300);
  });
  test('retention: 30 days of history, 90 for unredriven dead letters, 400 of incident counts, audit kept; bad combinations are refused', () => {
    expect(loadConfig({}).retention).toEqual({ historyDays: 30, deadLetterDays: 90, incidentRollupDays: 400, auditDays: 0, intervalMs: 3_600_000, batchSize: 200, maxRowsPerSecond: 5_000 });
    expect(loadConfig({ SWITCHBOARD_RETENTION_HISTORY_DAYS: '0', SWITCHBOARD_RETENTION_INCIDENT_DAYS: '0' }).retention).toMatchObject({ historyDays: 0, incidentRollupDays: 0 });
    expect(errorOf({ SWITCHBOARD_RETENTION_HISTORY_DAYS: '-1' })).toContain('SWITCHBOARD_RETENTION_HISTORY_DAYS:');
    expect(errorOf({ SWITCHBOARD_RETENTION_HISTORY_DAYS: '1.5' })).toContain('SWITCHBOARD_RETENTION_HISTORY_DAYS:');
    expect(errorOf({ SWITCHBOARD_RETENTION_BATCH_SIZE: '501' })).toContain('SWITCHBOARD_RETENTION_BATCH_SIZE:');
    expect(errorOf({ SWITCHBOARD_RETENTION_HISTORY_DAYS: '60', SWITCHBOARD_RETENTION_DEAD_LETTER_DAYS: '30' })).toContain('SWITCHBOARD_RETENTION_DEAD_LETTER_DAYS: must be 0 (keep forever) or at least SWITCHBOARD_RETENTION_HISTORY_DAYS');
    expect(errorOf({ SWITCHBOARD_RETENTION_INCIDENT_DAYS: '90' })).toContain('SWITCHBOARD_RETENTION_INCIDENT_DAYS: must be 0 (keep forever) or more than 90');
  });
});
