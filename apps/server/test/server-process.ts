/**
 * The real server as a child process on a data folder that outlives it, for crash tests that
 * SIGKILL it and start it again: the testkit's server process with a test server's defaults.
 */
import { runServerToExit as runToExit, startServerProcess as start, type ServerProcess } from '@switchboard/testkit';

export { freePort, type ServerProcess } from '@switchboard/testkit';

/** A test server's defaults (each may be overridden): no demo traffic, no rate limit, only errors logged. */
const TEST_SERVER_ENV = { SWITCHBOARD_DEMO: 'off', SWITCHBOARD_RATE_LIMIT_PER_S: '0', SWITCHBOARD_LOG_LEVEL: 'error' };

/** A server expected to refuse to start: runs it to its exit (at most 30 s) and returns how it ended. */
export function runServerToExit(env: Record<string, string>): { status: number | null; stderr: string } {
  return runToExit({ env: { ...TEST_SERVER_ENV, ...env } });
}

/** `readyTimeoutMs`: how long a start may take (several processes booting at once on a busy machine take longer). */
export async function startServerProcess(env: Record<string, string>, readyTimeoutMs = 30_000): Promise<ServerProcess> {
  return start({ env: { ...TEST_SERVER_ENV, ...env }, readyTimeoutMs });
}
