import { availableParallelism } from 'node:os';
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
    // Each worker keeps its module cache from one test file to the next: re-importing the server,
    // runtime and store for every file was a third of each pass (docs/performance-notes.md). Test
    // files hold their state in what they start (servers, stores, temp folders) and restore the
    // few globals they touch, so sharing the module cache changes no outcome.
    isolate: false,
    // Vitest's default is one worker fewer than the CPUs: a single one on a 2-core CI machine, where
    // the CPU was then about half idle (test files wait on servers, fsyncs and PostgreSQL). Two at a
    // time there cut both passes' time markedly, and a third again, every test passing
    // (docs/performance-notes.md). The chaos pass runs two files at a time (scripts/test-all.mjs).
    maxWorkers: Math.max(3, availableParallelism() - 1),
  },
});
