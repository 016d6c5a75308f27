/**
 * The chaos tests' cluster: the testkit's Cluster (several server processes on one PostgreSQL
 * database) with the chaos bundle and token.
 */
import { fileURLToPath } from 'node:url';
import { Cluster as ServerCluster, clusterTestDatabase } from '@switchboard/testkit';

export { NoAnswer, type ChaosServer, type RpcAnswer, type UnexpectedExit } from '@switchboard/testkit';

export const CHAOS_BUNDLE = fileURLToPath(new URL('./chaos.yaml', import.meta.url));
export const CHAOS_TOKEN = 'sbk_multi_node_chaos_token_0001';

export class Cluster extends ServerCluster {
  constructor(databaseUrl: string, env: Record<string, string> = {}) {
    super(databaseUrl, { token: CHAOS_TOKEN, bundle: CHAOS_BUNDLE, env });
  }

  /** A cluster on a fresh database of the PostgreSQL test server (SWITCHBOARD_TEST_DATABASE_URL). */
  static async onTestDatabase(name: string, env: Record<string, string> = {}): Promise<Cluster> {
    return new Cluster(await clusterTestDatabase(name), env);
  }
}

/**
 * Polls `check` until it holds; false when `timeoutMs` ran out first. For the waits whose outcome a
 * chaos test reports with what else it saw (an audit of the run) rather than failing on the spot;
 * a wait that must succeed is expect.poll or vi.waitFor.
 */
export async function waitUntil(check: () => Promise<boolean> | boolean, timeoutMs: number, pollMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
