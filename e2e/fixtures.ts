/**
 * Test fixtures: the shared server started by global-setup, an RPC helper for seeding and checking,
 * and a page that is already signed in (through the same login route the sign-in screen uses).
 */
import { test as base, expect, type Page } from '@playwright/test';
import { acquireExclusive, acquireShared } from './cpu-lock';
import { rpcClient, type RpcClient } from './rpc-client';

export interface SharedServer extends RpcClient {
  url: string;
  token: string;
}

export function sharedServer(): SharedServer {
  const url = process.env.E2E_BASE_URL;
  const token = process.env.E2E_TOKEN;
  if (!url || !token) throw new Error('E2E_BASE_URL/E2E_TOKEN missing: run through e2e/playwright.config.ts (global setup starts the server)');
  return { url, token, ...rpcClient(url, token) };
}

/** Signs the page's browser context in through POST /v1/auth/login (sets the session cookie). */
export async function signInContext(page: Page, server: { url: string; token: string }): Promise<void> {
  const r = await page.request.post(`${server.url}/v1/auth/login`, { data: { token: server.token }, headers: { Origin: server.url } });
  expect(r.status(), await r.text()).toBe(200);
}

/** How long a test taking the CPU to itself waits for the tests already running to end. */
const EXCLUSIVE_WAIT_MS = 150_000;

export interface CpuLock {
  /**
   * From here to the test's end no other test runs: for the timed part of a test whose set-up
   * need not hold the others up.
   */
  takeExclusive(): Promise<void>;
}

export const test = base.extend<{ server: SharedServer; signedIn: Page; cpuLock: CpuLock }>({
  cpuLock: [
    async ({}, use, testInfo) => {
      let release = await acquireShared(testInfo.testId);
      let exclusive = false;
      try {
        await use({
          async takeExclusive() {
            if (exclusive) return;
            release();
            release = await acquireExclusive(EXCLUSIVE_WAIT_MS);
            exclusive = true;
          },
        });
      } finally {
        release();
      }
    },
    { auto: true },
  ],
  server: async ({}, use) => use(sharedServer()),
  baseURL: async ({}, use) => use(process.env.E2E_BASE_URL),
  signedIn: async ({ page, server }, use) => {
    await signInContext(page, server);
    await use(page);
  },
});

export { expect };
