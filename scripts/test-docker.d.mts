/** Types of test-docker.mjs, for the TypeScript tests that import it (apps/server/test/docker-engine.ts). */
export const DEFAULT_TEST_DOCKER_SOCKET: string;
export const DEFAULT_TEST_DOCKER_IMAGE: string;
export interface EngineAnswer {
  status: number;
  body: any;
  text: string;
}
export function engineRequest(
  socketPath: string,
  method: string,
  urlPath: string,
  body?: unknown,
  options?: { timeoutMs?: number; contentType?: string },
): Promise<EngineAnswer>;
export function findTestDocker(options?: { start?: boolean }): Promise<{ socket: string; image: string; reason?: undefined } | { socket?: undefined; image?: undefined; reason: string }>;
