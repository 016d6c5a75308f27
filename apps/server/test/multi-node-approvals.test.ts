/**
 * The two-person rule across servers: two servers on one PostgreSQL database, two reviewers
 * approving the same two-approval item at the same moment, one through each server, many times.
 * Each item must end approved with exactly one downstream event, one answer "approved" and the
 * other "pending" (whichever came second saw the first's approval). Without the item-row
 * serialisation both approvals count one of two and the item stays pending with no event. One
 * person approving through both servers at once gets one approval and one ALREADY_APPROVED.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseOf, sql, testEngine } from '@switchboard/store/testing';
import { startTestServer, type TestServer } from './harness';
import { addPerson, openItemOf, TWO_PERSON_BUNDLE, type TestPerson } from './two-person-helpers';

const ROUNDS = 60;

describe.runIf(testEngine() === 'postgres')('two people approving one item at once on two PostgreSQL servers', () => {
  let dataDir: string;
  let a: TestServer;
  let b: TestServer;
  let rita: TestPerson;
  let ravi: TestPerson;
  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-two-person-'));
    a = await startTestServer({ dataDir, env: { SWITCHBOARD_BUNDLE: TWO_PERSON_BUNDLE } });
    b = await startTestServer({ dataDir, env: { SWITCHBOARD_BUNDLE: TWO_PERSON_BUNDLE } });
    rita = await addPerson(a, 'Rita Reviewer', 'reviewer');
    ravi = await addPerson(a, 'Ravi Reviewer', 'reviewer');
  }, 60_000);
  afterAll(async () => {
    await b?.close();
    await a?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(`${ROUNDS} rounds: exactly one downstream event per item, one "approved" and one "pending" answer`, async () => {
    expect(a.runtime.serverId).not.toBe(b.runtime.serverId);
    const items: string[] = [];
    const answers: string[][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const item = await openItemOf(a, 'order.placed', { order_id: `mn-${round}`, amount: round });
      items.push(item.mailbox_id);
      // Alternate who goes through which server, so neither server is always the first to arrive.
      const [first, second] = round % 2 ? [a, b] : [b, a];
      const both = await Promise.all([
        first.rpc('mailbox.approve', { mailbox_id: item.mailbox_id }, { token: rita.secret }),
        second.rpc('mailbox.approve', { mailbox_id: item.mailbox_id }, { token: ravi.secret }),
      ]);
      answers.push(both.map((r) => r.result?.status ?? r.error!.data.code).sort());
    }
    const db = databaseOf(a.store);
    const { rows } = await sql<{ mailbox_id: string; status: string; approvals_count: number; approvals: number; events: number }>`
      select m.mailbox_id, m.status, m.approvals_count,
             (select count(*)::int from mailbox_approvals p where p.mailbox_id = m.mailbox_id) as approvals,
             (select count(*)::int from events e where e.source = 'mailbox:' || m.mailbox_id) as events
      from mailbox_items m where m.mailbox_id in (${sql.join(items)})`.execute(db);
    const tally = (values: string[]) => values.reduce<Record<string, number>>((t, v) => ({ ...t, [v]: (t[v] ?? 0) + 1 }), {});
    const summary = {
      rounds: ROUNDS,
      answers: tally(answers.map((pair) => pair.join('+'))),
      item_status: tally(rows.map((r) => r.status)),
      events_per_item: tally(rows.map((r) => String(r.events))),
    };
    console.log(`two-person multi-node: ${JSON.stringify(summary)}`);
    expect(summary).toEqual({ rounds: ROUNDS, answers: { 'approved+pending': ROUNDS }, item_status: { approved: ROUNDS }, events_per_item: { '1': ROUNDS } });
    expect(rows.every((r) => r.approvals === 2 && r.approvals_count === 2)).toBe(true);
  }, 180_000);

  it('one person approving the same item through both servers at once: one approval counts, the other is ALREADY_APPROVED', async () => {
    const rounds = 20;
    const answers: string[] = [];
    const pendingWithOne: boolean[] = [];
    for (let round = 0; round < rounds; round++) {
      const item = await openItemOf(a, 'order.placed', { order_id: `same-${round}`, amount: round });
      const both = await Promise.all([a, b].map((server) => server.rpc('mailbox.approve', { mailbox_id: item.mailbox_id }, { token: rita.secret })));
      answers.push(both.map((r) => r.result?.status ?? r.error!.data.code).sort().join('+'));
      const got = (await b.rpc('mailbox.get', { mailbox_id: item.mailbox_id })).result!;
      pendingWithOne.push(got.item.status === 'pending' && got.approvals!.length === 1);
    }
    console.log(`two-person multi-node, same person: ${JSON.stringify(answers.reduce<Record<string, number>>((t, v) => ({ ...t, [v]: (t[v] ?? 0) + 1 }), {}))}`);
    expect(answers).toEqual(Array(rounds).fill('ALREADY_APPROVED+pending'));
    expect(pendingWithOne.every(Boolean)).toBe(true);
  }, 120_000);
});
