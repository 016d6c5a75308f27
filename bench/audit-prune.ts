/**
 * Times one retention batch of audit targets on a trail of 1,000,000 records (2,000,000 targets):
 * deleted with `seq <= ?` as before, and by their keys read from the records as
 * `removeAuditThrough` does now. Each delete is rolled back, so both run on the same data,
 * alternated. `BATCH` records per batch (300). Run: `npx tsx bench/audit-prune.ts`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Store } from '@switchboard/store';

const N = 1_000_000;
const BATCH = Number(process.env.BATCH ?? 300);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sb-audit-prune-'));
const store = await Store.open({ dataDir: dir });
await store.close();
const db = new BetterSqlite3(path.join(dir, 'switchboard.db'));
const id = (p: string, i: number) => `${p}_0mx${i.toString(36).padStart(8, '0')}abcdef0123456789`;
db.transaction(() => {
  const a = db.prepare(`insert into audit (seq, at, user_id, user_name, token_id, channel, server_id, method, target_ids, params_summary, outcome, correlation_id, prev_hash, hash) values (?, '2026-01-01T00:00:00.000Z', 'usr', 'u', 'tok', 'api', 's', 'event.publish', ?, '{}', 'ok', null, 'p', 'h')`);
  const t = db.prepare('insert into audit_targets (target_id, seq) values (?, ?)');
  for (let i = 1; i <= N; i++) {
    const targets = [id('run', i), id('evt', i)];
    a.run(i, JSON.stringify(targets));
    for (const x of targets) t.run(x, i);
  }
})();
const bySeq = db.prepare('delete from audit_targets where seq <= ?');
const records = db.prepare('select seq, target_ids from audit where seq <= ?');
const time = (f: () => void) => { db.exec('begin'); const t = process.hrtime.bigint(); f(); const ms = Number(process.hrtime.bigint() - t) / 1e6; db.exec('rollback'); return ms; };
const byKey = (through: number) => {
  const keys = (records.all(through) as { seq: number; target_ids: string }[]).flatMap((r) => (JSON.parse(r.target_ids) as string[]).map((x) => [x, r.seq] as const));
  for (let i = 0; i < keys.length; i += 500) {
    const chunk = keys.slice(i, i + 500);
    db.prepare(`delete from audit_targets where (target_id, seq) in (values ${chunk.map(() => '(?, ?)').join(', ')})`).run(...chunk.flat());
  }
};
const a: number[] = [], b: number[] = [];
for (let round = 0; round < 10; round++) { a.push(time(() => bySeq.run(BATCH))); b.push(time(() => byKey(BATCH))); }
const med = (x: number[]) => [...x].sort((p, q) => p - q)[x.length >> 1]!.toFixed(2);
console.log(`batch of ${BATCH} records (${2 * BATCH} targets) of ${N}: by seq ${a.map((x) => x.toFixed(1)).join(' ')} ms (median ${med(a)}); by key ${b.map((x) => x.toFixed(2)).join(' ')} ms (median ${med(b)})`);
db.close();
fs.rmSync(dir, { recursive: true, force: true });
