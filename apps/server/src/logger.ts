/**
 * Structured JSON log lines on stdout, one object per line so they can be grepped and shipped:
 * `level`, `ts` (ISO time), the fields, `msg`. Written by pino to an asynchronous destination:
 * a slow reader of stdout (a full pipe, a busy log shipper) holds lines in memory instead of
 * holding the event loop, and lines written while a write is in flight go out together. What is
 * still buffered is flushed when the process exits; a SIGKILL loses it.
 */
import pino, { type DestinationStream } from 'pino';
import { isoTimestamp } from './iso-timestamp';

/**
 * Lines go out together once this many bytes wait, and at least every LOG_FLUSH_MS. Each write of
 * the asynchronous destination runs on libuv's thread pool, and its completion wakes the event
 * loop: written a loop turn's few lines at a time, under load that was a write and an extra turn
 * for nearly every turn, which lengthened the slowest requests (bench/README.md, "What the ping
 * p99 holds").
 */
const LOG_BATCH_BYTES = 8192;
const LOG_FLUSH_MS = 100;

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  /** Whether a line at this level would be written (lets callers skip building it). */
  enabled(level: LogLevel): boolean;
  log(level: LogLevel, msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
  debug(msg: string, fields?: Record<string, unknown>): void;
}

/**
 * `write` receives each line without its newline (tests collect them); without it, lines go to
 * stdout asynchronously.
 */
export function createLogger(minLevel: LogLevel | 'silent' = 'info', write?: (line: string) => void): Logger {
  const destination: DestinationStream = write ? { write: (line) => write(line.endsWith('\n') ? line.slice(0, -1) : line) } : pino.destination({ dest: 1, sync: false, minLength: LOG_BATCH_BYTES, periodicFlush: LOG_FLUSH_MS });
  const lines = pino(
    {
      level: minLevel,
      base: undefined,
      messageKey: 'msg',
      timestamp: () => `,"ts":"${isoTimestamp(Date.now())}"`,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  const log = (level: LogLevel, msg: string, fields?: Record<string, unknown>) => {
    if (fields) lines[level](fields, msg);
    else lines[level](msg);
  };
  return {
    enabled: (level) => lines.isLevelEnabled(level),
    log,
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
    debug: (m, f) => log('debug', m, f),
  };
}
