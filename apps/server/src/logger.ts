/** Structured JSON log lines on stdout; one object per line so they can be grepped and shipped. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const rank: Record<LogLevel | 'silent', number> = { debug: 0, info: 1, warn: 2, error: 3, silent: 9 };

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
 * Lines written in one turn of the event loop go to stdout in one write: under load that is one
 * system call per turn instead of one per request. A SIGKILL can lose at most that turn's lines.
 */
function batchedStdout(): (line: string) => void {
  let pending: string[] = [];
  const flush = () => {
    if (pending.length === 0) return;
    const text = pending.join('\n') + '\n';
    pending = [];
    process.stdout.write(text);
  };
  process.once('exit', flush);
  return (line) => {
    if (pending.length === 0) setImmediate(flush);
    pending.push(line);
  };
}

export function createLogger(minLevel: LogLevel | 'silent' = 'info', write: (line: string) => void = batchedStdout()): Logger {
  const log = (level: LogLevel, msg: string, fields: Record<string, unknown> = {}) => {
    if (rank[level] < rank[minLevel]) return;
    write(JSON.stringify({ ts: new Date().toISOString(), level, msg, ...fields }));
  };
  return {
    enabled: (level) => rank[level] >= rank[minLevel],
    log,
    info: (m, f) => log('info', m, f),
    warn: (m, f) => log('warn', m, f),
    error: (m, f) => log('error', m, f),
    debug: (m, f) => log('debug', m, f),
  };
}
