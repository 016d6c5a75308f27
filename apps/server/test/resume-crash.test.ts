/**
 * Crash test: the real server process is SIGKILLed in the middle of a resume of 1,000 queued
 * publishes, then started again on the same data folder. Every queued publish must still be
 * dispatched exactly once: one event per queued run, one delivered delivery each, and the counter
 * entity the bundle's node increments per delivery ends at exactly 1,000.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { CONTROL_BUNDLE, waitFor } from './control-helpers';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const TOKEN = 'sbk_crash_test_token_0000000001';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-crash-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function startServerProcess(): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  // node --import tsx, not the tsx CLI: the CLI runs the server in a grandchild that a SIGKILL of the CLI would not reach.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      PORT: String(port),
      HOST: '127.0.0.1',
      SWITCHBOARD_DATA_DIR: dataDir,
      SWITCHBOARD_TOKEN: TOKEN,
      SWITCHBOARD_DEMO: 'off',
      SWITCHBOARD_BUNDLE: CONTROL_BUNDLE,
      SWITCHBOARD_RATE_LIMIT_PER_S: '0',
      SWITCHBOARD_LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  children.push(child);
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      if (child.exitCode !== null) throw new Error(`server exited during start: ${stderr}`);
      try {
        return (await fetch(url + '/readyz')).status === 200;
      } catch {
        return false;
      }
    },
    30_000,
    'the server process to become ready',
  );
  return { child, url };
}

async function call(url: string, body: unknown): Promise<any> {
  const res = await fetch(url + '/v1/rpc', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(body),
  });
  return res.json();
}

const rpc = async (url: string, method: string, params: unknown = {}) => {
  const res = await call(url, { jsonrpc: '2.0', id: 1, method, params });
  if (res.error) throw new Error(`${method}: ${JSON.stringify(res.error)}`);
  return res.result;
};

it('a server killed during a resume of 1,000 queued items still dispatches each exactly once after restart', async () => {
  const first = await startServerProcess();
  await rpc(first.url, 'runtime.pause');
  for (let b = 0; b < 10; b++) {
    const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'event.publish', params: { event_name: 'tick', payload: { n: b * 100 + i } } }));
    const answers = (await call(first.url, batch)) as any[];
    expect(answers.every((a) => a.result?.status === 'queued')).toBe(true);
  }
  expect((await rpc(first.url, 'runtime.status')).queue_depth).toBe(1000);

  // Watch the store from outside (WAL allows a concurrent reader) and kill mid-resume.
  const reader = new BetterSqlite3(path.join(dataDir, 'switchboard.db'), { readonly: true, fileMustExist: true });
  const releasedCount = () => (reader.prepare(`select count(*) as n from ingress_queue where status = 'released'`).get() as { n: number }).n;
  const resume = call(first.url, { jsonrpc: '2.0', id: 'resume', method: 'runtime.resume', params: {} }).catch((err: Error) => ({ transportError: err.message }));
  await waitFor(() => releasedCount() >= 50, 30_000, 'the resume to be under way');
  first.child.kill('SIGKILL');
  await new Promise((r) => first.child.once('exit', r));
  const releasedAtKill = releasedCount();
  expect(releasedAtKill).toBeGreaterThanOrEqual(50);
  expect(releasedAtKill).toBeLessThan(1000);
  expect(await resume).toHaveProperty('transportError');

  const second = await startServerProcess();
  await waitFor(
    async () => {
      const s = await rpc(second.url, 'runtime.status');
      return s.queue_depth === 0 && s.pending_deliveries === 0;
    },
    60_000,
    'the restarted runtime to finish the resume and dispatch',
  );

  const events = reader.prepare(`select run_id, count(*) as n from events where event_name = 'tick' group by run_id`).all() as { run_id: string; n: number }[];
  expect(events.length).toBe(1000);
  expect(events.every((e) => e.n === 1)).toBe(true);
  const queue = reader.prepare(`select status, count(*) as n from ingress_queue group by status`).all();
  expect(queue).toEqual([{ status: 'released', n: 1000 }]);
  const deliveries = reader.prepare(`select status, count(*) as n from deliveries group by status`).all();
  expect(deliveries).toEqual([{ status: 'delivered', n: 1000 }]);
  const counter = reader.prepare(`select accumulated from entities where entity_id = 'counter-main'`).get() as { accumulated: string };
  expect(JSON.parse(counter.accumulated).ticks).toBe(1000);
  reader.close();
  second.child.kill('SIGTERM');
  await new Promise((r) => second.child.once('exit', r));
}, 180_000);
