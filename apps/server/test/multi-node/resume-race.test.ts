/**
 * (e) Resume on two servers at once, and one of them killed in the middle of it: ingress is paused,
 * hundreds of keyed publishes are queued through three servers, then runtime.resume is called on
 * servers A and B together and A is SIGKILLed while the queue is being released. The survivors must
 * release and dispatch every queued item exactly once: one event each, its deliveries completed
 * or dead-lettered once, its effects applied once, nothing left queued.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { auditAndCheck, waitSettled } from './audit';
import { Cluster, NoAnswer, waitUntil, type RpcAnswer } from './cluster';
import type { KeyRecord } from './load';

const QUEUED = 300;
const BATCH = 100;
let cluster: Cluster;

beforeAll(async () => {
  cluster = await Cluster.onTestDatabase('resume');
}, 60_000);
afterAll(() => cluster?.dispose());

async function released(): Promise<number> {
  const [row] = await cluster.query<{ n: number }>(`select count(*)::int as n from ingress_queue where status = 'released'`);
  return row!.n;
}

it('resume on two servers at once, one killed mid-resume, dispatches every queued item exactly once', async () => {
  const t0 = Date.now();
  const [a, b, c] = await cluster.startAll(['a', 'b', 'c']);
  const startMs = Date.now() - t0;
  await cluster.ok(a!, 'runtime.pause', { reason: 'chaos: queue before a racing resume' });
  const keys: KeyRecord[] = [];
  for (let first = 0; first < QUEUED; first += BATCH) {
    const via = [a!, b!, c!][(first / BATCH) % 3]!;
    const batch = Array.from({ length: BATCH }, (_, i) => ({ key: `queued-${first + i}` }));
    const answers = await cluster.batch(
      via.url,
      batch.map(({ key }) => ({ method: 'event.publish', params: { event_name: 'work', payload: { key }, idempotency_key: key } })),
    );
    answers.forEach((answer, i) => {
      const record: KeyRecord = { key: batch[i]!.key, event: 'work', calls: 1 };
      if (answer.result) record.acked = { event_id: answer.result.event_id, run_id: answer.result.run_id, status: answer.result.status, server: via.label };
      else record.refused = answer.error?.data?.code;
      keys.push(record);
    });
  }
  const queueMs = Date.now() - t0 - startMs;
  const queuedAnswers = keys.filter((k) => k.acked?.status === 'queued').length;

  let answeredA: RpcAnswer | 'no_answer' | undefined;
  let answeredB: RpcAnswer | 'no_answer' | undefined;
  const resume = (url: string) => cluster.rpc(url, 'runtime.resume', {}, 60_000).catch((err) => (err instanceof NoAnswer ? ('no_answer' as const) : Promise.reject(err)));
  const resumeA = resume(a!.url).then((r) => (answeredA = r));
  const resumeB = resume(b!.url).then((r) => (answeredB = r));
  const underWay = await waitUntil(async () => (await released()) >= 40, 20_000, 10);
  const aAnsweredBeforeKill = answeredA !== undefined;
  await cluster.kill(a!);
  const releasedAtKill = await released();
  await Promise.all([resumeA, resumeB]);

  const settleStarted = Date.now();
  const settled = await waitSettled(cluster, 90_000);
  const settleMs = Date.now() - settleStarted;
  const [queue] = await cluster.query<{ released: number; queued: number }>(
    `select count(*) filter (where status = 'released')::int as released, count(*) filter (where status = 'queued')::int as queued from ingress_queue`,
  );
  const releasedBy = (answer: typeof answeredA) => (answer === 'no_answer' || answer === undefined ? answer ?? 'none' : answer.result?.released ?? JSON.stringify(answer.error));
  await auditAndCheck(cluster, '(e) racing resume, one server killed mid-resume', keys, settled, {
    queued: queuedAnswers,
    releasedAtKill,
    aAnsweredBeforeKill,
    resumeA: releasedBy(answeredA),
    resumeB: releasedBy(answeredB),
    queueAfter: queue,
    startMs,
    queueMs,
    settleMs,
  });

  expect(queuedAnswers).toBe(QUEUED);
  expect(underWay).toBe(true);
  // The kill has to land while A is still resuming, or this test says nothing about it.
  expect(aAnsweredBeforeKill).toBe(false);
  expect(answeredB !== 'no_answer' && answeredB?.result !== undefined).toBe(true);
  expect(queue).toEqual({ released: QUEUED, queued: 0 });
}, 180_000);
