import path from 'node:path';
import { defineConfig, devices } from '@playwright/test';

const root = path.resolve(import.meta.dirname, '..');
const tracesWanted = process.env.E2E_TRACES ? process.env.E2E_TRACES !== '0' : process.env.CI !== 'true';
const freshContexts = process.env.E2E_FRESH_CONTEXTS === '1';

export default defineConfig({
  testDir: path.join(import.meta.dirname, 'tests'),
  outputDir: path.join(root, 'test-results', 'playwright-artifacts'),
  globalSetup: path.join(import.meta.dirname, 'global-setup.ts'),
  fullyParallel: false,
  workers: 2,
  retries: 0,
  // Generous: a test may wait for the scroll measurement to release the CPU lock (cpu-lock.ts).
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: [['list'], ['json', { outputFile: path.join(root, 'test-results', 'playwright.json') }]],
  use: {
    ...devices['Desktop Chrome'],
    headless: true,
    // One browser context per worker, reset between tests, instead of a new one per test: each new
    // context's page started renderer processes of its own, much of the run's CPU. Playwright
    // advises against it for end-to-end tests; what the reset leaves, and why no test depends on
    // it, is in docs/performance-notes.md. E2E_FRESH_CONTEXTS=1 gives each test a new context.
    reuseContext: !freshContexts,
    viewport: { width: 1280, height: 800 },
    // A failed test keeps its trace (actions, DOM snapshots, network); the screencast is left out:
    // recording it for every test took about a third of the e2e run's CPU (docs/performance-notes.md).
    // Traces are for a person to open, so a CI run on a throwaway clone records none (E2E_TRACES=1
    // or 0 decides either way): its log has each failure's error and call log.
    trace: tracesWanted ? { mode: 'retain-on-failure', screenshots: false } : 'off',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    },
  },
  projects: [{ name: 'chromium' }],
});
