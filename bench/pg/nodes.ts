/** One round of the server scenarios on one engine, and the data-path baseline's round. */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { Store } from '@switchboard/store';
import { databaseOf } from '@switchboard/store/testing';
import { loadAverage, startProcess, stop } from '../rounds';
import { changeVisibility, type ChangeFigures } from './change';
import { BUNDLE_PATH, freshCluster, serverEnv } from './cluster';
import { drainBacklog, type Drain } from './drain';
import { claimedLatency, publishToHandler, viaServerA, type Latency } from './latency';
import { makeDir, madeWorktrees, removeDir } from './resources';
import { warmHttpPublishes, type Publishes } from './publishes';
import { DATAPATH_REF, HTTP_CONNECTIONS, LATENCY_RATE, count, label, ms, root, type Engine } from './settings';

export interface ServersRound {
  drain: Drain;
  latency: Latency;
  /** The untimed parts before them, for the per-round lines. */
  coldDrain?: Drain;
  coldLatency?: Latency;
  change: ChangeFigures;
  publishes: Publishes;
}


/** One round on `engine`, its servers (and the reads and writes around them) from `tree`. */
export async function serversRound(engine: Engine, round: number, tree = root): Promise<ServersRound> {
  const c = await freshCluster(engine, tree);
  try {
    const tag = `  round ${round} ${label(engine)}${tree === root ? '' : ', before'}`;
    const drains = await drainBacklog(c);
    const drain = drains.timed;
    const firstDrain = drains.warmup ? `; the ${count(drains.warmup.delivered)} untimed before them ${count(drains.warmup.perSecond)}/s` : '';
    console.log(`${tag}: drain ${count(drain.delivered)} deliveries ${count(drain.perSecond)}/s${drain.failed ? `, ${drain.failed} NOT DELIVERED` : ''}${firstDrain} (load ${loadAverage()})`);
    const untimed = (l: Latency | undefined) => (l ? `; the ${l.published} untimed before them p50 ${ms(l.p50)} p99 ${ms(l.p99)}` : '');
    const latencies = await publishToHandler(c, viaServerA(c));
    const latency = latencies.timed;
    console.log(`${tag}: ${latency.published} publishes at ${LATENCY_RATE}/s via server A, publish call -> handler p50 ${ms(latency.p50)} p99 ${ms(latency.p99)} (ack p50 ${ms(latency.ackP50)})${untimed(latencies.warmup)} (load ${loadAverage()})`);
    if (engine === 'postgres') {
      const claimed = await claimedLatency(c);
      console.log(`${tag}: ${claimed.timed.published} publishes at ${LATENCY_RATE}/s written by this process (no dispatcher), each claimed by a server: publish call -> handler p50 ${ms(claimed.timed.p50)} p99 ${ms(claimed.timed.p99)}${untimed(claimed.warmup)} (load ${loadAverage()})`);
    }
    const change = await changeVisibility(c, round);
    const where = engine === 'postgres' ? 'published via A, seen on B' : 'published and seen on the one server';
    console.log(
      `${tag}: change ${where}: runtime.changed ${change.changed ? `p50 ${ms(change.changed.p50)} p99 ${ms(change.changed.p99)}${change.changed.missed ? `, ${change.changed.missed} missed` : ''}` : `unavailable: ${change.changedUnavailable}`}; event.list poll p50 ${ms(change.listed.p50)} p99 ${ms(change.listed.p99)}${change.listed.missed ? `, ${change.listed.missed} NOT SEEN` : ''} (${change.samples} samples, load ${loadAverage()})`,
    );
    const { publishes, tail } = await warmHttpPublishes(c.nodes.map((n) => n.port));
    console.log(
      `${tag}: http event.publish ${HTTP_CONNECTIONS}c (${publishes.perServer.map(count).join(' + ')}) ${count(publishes.rps)} events/s, p99 ${publishes.p99} ms${tail} (load ${loadAverage()})`,
    );
    return { drain, latency, change, publishes, coldDrain: drains.warmup, coldLatency: latencies.warmup };
  } finally {
    await c.dispose();
  }
}

/**
 * The data-path baseline's tree, ready to run: a worktree of `ref` with this checkout's
 * node_modules hard-linked in (its workspace links are relative, so they name the worktree's own
 * packages). Undefined, with the reason printed, when the commit is not in this clone.
 */
export function datapathTree(ref: string): string | undefined {
  const dir = makeDir('switchboard-bench-pg-datapath-');
  const added = spawnSync('git', ['-C', root, 'worktree', 'add', '--detach', dir, ref], { encoding: 'utf8' });
  if (added.status !== 0) {
    console.log(`data-path baseline left out: git worktree add ${ref} failed: ${added.stderr.trim()}`);
    return undefined;
  }
  madeWorktrees.add(dir);
  const linked = spawnSync('cp', ['-al', path.join(root, 'node_modules'), path.join(dir, 'node_modules')], { encoding: 'utf8' });
  if (linked.status !== 0) throw new Error(`could not link node_modules into ${dir}: ${linked.stderr}`);
  return dir;
}

/** The data-path baseline's publish figure: one SQLite server from its tree, on a fresh folder. */
export async function datapathRound(tree: string, round: number): Promise<Publishes> {
  const dataDir = makeDir('switchboard-bench-pg-datapath-data-');
  const server = await startProcess('apps/server/src/main.ts', serverEnv('sqlite', { dataDir }, BUNDLE_PATH), tree);
  let measured: { publishes: Publishes; tail: string };
  try {
    measured = await warmHttpPublishes([server.port]);
  } finally {
    await stop(server.child);
  }
  const { publishes, tail } = measured;
  // An answer is not a publish until it is stored: count what its store holds once it stopped (this
  // checkout's store opens that folder, an ancestor of its format).
  const store = await Store.open({ dataDir });
  const stored = Number((await databaseOf(store).selectFrom('events').select((eb) => eb.fn.countAll().as('n')).where('event_name', '=', 'work').executeTakeFirstOrThrow()).n);
  await store.close();
  removeDir(dataDir);
  console.log(
    `  round ${round} sqlite at ${DATAPATH_REF} (data-path end), 1 server: http event.publish ${HTTP_CONNECTIONS}c ${count(publishes.rps)} events/s, p99 ${publishes.p99} ms, ${count(stored)} events stored of ${count(publishes.answered)} answered (untimed part too)${stored < publishes.answered ? `, ${count(publishes.answered - stored)} ANSWERED BUT NOT STORED` : ''}${tail} (load ${loadAverage()})`,
  );
  return publishes;
}
