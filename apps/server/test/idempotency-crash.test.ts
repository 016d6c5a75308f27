/**
 * Crash test for keyed mutations: the server is SIGKILLed after a keyed publish's effect has
 * committed and before its answer is sent (the `kill-after-effect` failpoint), again and again,
 * while a client retries every key until it is acknowledged. No key may be executed twice, and
 * every replay must return the result of the one execution.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, expect, it } from 'vitest';
import { CONTROL_BUNDLE } from './control-helpers';
import { startServerProcess, type ServerProcess } from './server-process';

const TOKEN = 'sbk_idempotency_crash_token_0001';
const KEYS = 12;
const KILL_AT_NTH_EFFECT = 3;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-idem-crash-'));
const started: ServerProcess[] = [];

afterAll(() => {
  for (const s of started) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function start(): Promise<ServerProcess> {
  const server = await startServerProcess({
    SWITCHBOARD_DATA_DIR: dataDir,
    SWITCHBOARD_TOKEN: TOKEN,
    SWITCHBOARD_BUNDLE: CONTROL_BUNDLE,
    SWITCHBOARD_TEST_FAILPOINT: `kill-after-effect:${KILL_AT_NTH_EFFECT}`,
  });
  started.push(server);
  return server;
}

type Answer = { result?: { run_id: string; event_id: string; status: string }; error?: unknown };

async function publish(url: string, key: string, n: number): Promise<Answer> {
  const res = await fetch(url + '/v1/rpc', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ jsonrpc: '2.0', id: key, method: 'event.publish', params: { event_name: 'tick', payload: { n }, idempotency_key: key } }),
  });
  return (await res.json()) as Answer;
}

it('a server killed between the effect and the answer never executes a key twice, and replays return the first result', async () => {
  let server = await start();
  const firstResults = new Map<string, Answer['result']>();
  let kills = 0;
  for (let n = 0; n < KEYS; n++) {
    const key = `crash-key-${n}`;
    for (;;) {
      const answer = await publish(server.url, key, n).catch(() => undefined);
      if (answer?.result) {
        firstResults.set(key, answer.result);
        break;
      }
      if (answer?.error) throw new Error(`publish ${key} failed: ${JSON.stringify(answer.error)}`);
      // No answer: the failpoint killed the server after the effect. Start it again and retry the same key.
      await server.exited;
      kills++;
      server = await start();
    }
  }
  expect(kills).toBeGreaterThanOrEqual(Math.floor(KEYS / KILL_AT_NTH_EFFECT) - 1);

  // Every key executed exactly once: one run and one event per payload n.
  const reader = new BetterSqlite3(path.join(dataDir, 'switchboard.db'), { readonly: true, fileMustExist: true });
  const events = reader.prepare(`select json_extract(payload, '$.n') as n, event_id, run_id from events where event_name = 'tick' order by n`).all() as { n: number; event_id: string; run_id: string }[];
  reader.close();
  expect(events.map((e) => e.n)).toEqual(Array.from({ length: KEYS }, (_, i) => i));

  // The acknowledged result is the one execution's, and a replay returns it again.
  for (const e of events) {
    const key = `crash-key-${e.n}`;
    expect(firstResults.get(key)).toMatchObject({ run_id: e.run_id, event_id: e.event_id });
    const replay = await publish(server.url, key, e.n);
    expect(replay.result).toEqual(firstResults.get(key));
  }
  server.child.kill('SIGTERM');
  await server.exited;
}, 240_000);
