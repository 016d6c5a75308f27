import { fileURLToPath } from 'node:url';

/** The root of this checkout (packages/testkit/src is three levels down). */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The server's entry point, relative to a checkout's root (earlier checkouts have it at the same place). */
export const SERVER_SCRIPT = 'apps/server/src/main.ts';
