/** The latency scenario: publishes at a fixed rate, each timed from the call to its handler's outcome. */
import { BUNDLE_PATH, type Cluster } from './cluster';
import { untilNoOpenDelivery } from './drain';
import { LATENCY_RATE, SECONDS, WARMUP_SECONDS, nowMs, percentile, sleep } from './settings';

export interface Latency {
  p50: number;
  p99: number;
  ackP50: number;
  published: number;
}

/** A latency publish through server A's HTTP API. */
export const viaServerA = (c: Cluster) => () => c.nodes[0]!.call('event.publish', { event_name: 'work', payload: { latency: true } }) as Promise<{ event_id: string }>;

/**
 * LATENCY_RATE publishes/s through `publish` for WARMUP_SECONDS, then for BENCH_SECONDS: for each
 * part, the time from each call's start to its delivery's outcome timestamp.
 */
export async function publishToHandler(c: Cluster, publish: () => Promise<{ event_id: string }>): Promise<{ warmup?: Latency; timed: Latency }> {
  const warmup = WARMUP_SECONDS > 0 ? await publishAtRate(c, publish, WARMUP_SECONDS) : undefined;
  return { warmup, timed: await publishAtRate(c, publish, SECONDS) };
}

export async function publishAtRate(c: Cluster, publish: () => Promise<{ event_id: string }>, seconds: number): Promise<Latency> {
  const sent: Promise<{ eventId: string; startedAt: number; ackMs: number }>[] = [];
  const until = nowMs() + seconds * 1000;
  let next = nowMs();
  while (nowMs() < until) {
    const startedAt = nowMs();
    sent.push(publish().then((r) => ({ eventId: r.event_id, startedAt, ackMs: nowMs() - startedAt })));
    next += 1000 / LATENCY_RATE;
    await sleep(Math.max(0, next - nowMs()));
  }
  const published = await Promise.all(sent);
  await untilNoOpenDelivery(c, 60_000);
  const startedAt = new Map(published.map((p) => [p.eventId, p.startedAt]));
  const latencies: number[] = [];
  for (let i = 0; i < published.length; i += 500) {
    const rows = await c.packages.databaseOf(c.store)
      .selectFrom('deliveries')
      .select(['event_id', 'updated_at'])
      .where('event_id', 'in', published.slice(i, i + 500).map((p) => p.eventId))
      .where('status', '=', 'delivered')
      .execute();
    for (const r of rows) latencies.push(Date.parse(r.updated_at) - startedAt.get(r.event_id)!);
  }
  if (latencies.length !== published.length) throw new Error(`${published.length} published, ${latencies.length} delivered`);
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), ackP50: percentile(published.map((p) => p.ackMs), 50), published: published.length };
}

/**
 * The same latency when no server can take the delivery as it is written: the publishes are written
 * by a runtime in this process that runs no dispatcher, so every delivery is claimed by a server
 * that learns of it from the change feed. (Through server A, A runs what it has room for itself.)
 */
export async function claimedLatency(c: Cluster): Promise<{ warmup?: Latency; timed: Latency }> {
  const publisher = await c.packages.Runtime.boot({ store: c.store, bundlePath: BUNDLE_PATH, autoStart: false });
  try {
    return await publishToHandler(c, () => publisher.publish({ event_name: 'work', payload: { latency: true } }));
  } finally {
    await publisher.stop();
  }
}
