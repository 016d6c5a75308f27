/**
 * (c) 50 concurrent identical idempotent calls spread across three servers: one execution. Each
 * round fires 50 copies of one keyed event.publish at once, round-robin over the servers; an answer
 * is either the result or IDEMPOTENCY_IN_PROGRESS (retried until it is the result). One event
 * must exist per key, every answer must name it, and its deliveries and effects happen once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditAndCheck, waitSettled } from './audit';
import { Cluster, NoAnswer, type ChaosServer, type RpcAnswer } from './cluster';
import type { ChaosEvent, KeyRecord } from './load';

const COPIES = 50;
const ROUNDS = 4;
let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.onTestDatabase('idem');
}, 60_000);
afterAll(() => cluster?.dispose());

/** One keyed publish until it gets a final answer (IDEMPOTENCY_IN_PROGRESS is retried, bounded). */
async function publishUntilFinal(server: ChaosServer, key: string, event: ChaosEvent, inProgress: { n: number }): Promise<RpcAnswer | 'no_answer'> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    let answer: RpcAnswer;
    try {
      answer = await cluster.rpc(server.url, 'event.publish', { event_name: event, payload: { key }, idempotency_key: key });
    } catch (err) {
      if (err instanceof NoAnswer) return 'no_answer';
      throw err;
    }
    if (answer.error?.data?.code !== 'IDEMPOTENCY_IN_PROGRESS' || Date.now() > deadline) return answer;
    inProgress.n++;
    await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
  }
}

it('50 identical keyed publishes at once across three servers execute once, and every answer names that execution', async () => {
  const servers = await cluster.startAll(['a', 'b', 'c']);
  const keys: KeyRecord[] = [];
  const rounds: { key: string; results: number; inProgressAnswers: number; otherErrors: string[]; distinctEventIds: number; events: number }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const key = `idem-${round}`;
    const event: ChaosEvent = round % 2 === 0 ? 'work' : 'slow';
    const inProgress = { n: 0 };
    const answers = await Promise.all(Array.from({ length: COPIES }, (_, i) => publishUntilFinal(servers[i % servers.length]!, key, event, inProgress)));
    const results = answers.filter((a): a is RpcAnswer => a !== 'no_answer' && a.result !== undefined);
    const otherErrors = answers.filter((a) => a === 'no_answer' || a.result === undefined).map((a) => (a === 'no_answer' ? a : JSON.stringify(a.error)));
    const eventIds = new Set(results.map((r) => r.result.event_id));
    const [row] = await cluster.query<{ n: number }>(`select count(*)::int as n from events where chain_depth = 0 and payload::json->>'key' = $1`, [key]);
    rounds.push({ key, results: results.length, inProgressAnswers: inProgress.n, otherErrors, distinctEventIds: eventIds.size, events: row!.n });
    const first = results[0]?.result;
    keys.push({ key, event, calls: COPIES, ...(first ? { acked: { event_id: first.event_id, run_id: first.run_id, status: first.status, server: 'any' } } : {}) });
  }
  const settled = await waitSettled(cluster, 30_000);
  const [claims] = await cluster.query<{ done: number; in_progress: number }>(
    `select count(*) filter (where state = 'done')::int as done, count(*) filter (where state = 'in_progress')::int as in_progress from idempotency where key like 'idem-%'`,
  );
  await auditAndCheck(cluster, '(c) 50 concurrent identical calls', keys, settled, {
    rounds,
    idempotencyRecords: claims,
  });

  for (const r of rounds) {
    expect({ key: r.key, results: r.results, otherErrors: r.otherErrors, distinctEventIds: r.distinctEventIds, executions: r.events }).toEqual({
      key: r.key,
      results: COPIES,
      otherErrors: [],
      distinctEventIds: 1,
      executions: 1,
    });
  }
  expect(claims).toEqual({ done: ROUNDS, in_progress: 0 });
}, 200_000);
