import { defineConfig } from 'vitest/config';

// The multi-process chaos tests (issue #10) start several servers on one PostgreSQL database and
// kill, freeze and cut them off: run on their own, one file at a time, by scripts/test-all.mjs.
const multiNodeChaos = 'apps/server/test/multi-node/**';
const chaosRun = process.env.SWITCHBOARD_MULTI_NODE_CHAOS === '1';

export default defineConfig({
  test: {
    include: ['packages/**/*.test.ts', 'apps/**/*.test.{ts,tsx}'],
    exclude: ['**/node_modules/**', 'e2e/**', 'dist/**', ...(chaosRun ? [] : [multiNodeChaos])],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
