/**
 * Incident lists against a reference model (moved from the store's read-repository suite when
 * sorting, paging, trends and states moved to the runtime), and the lifecycle rules: a resolved
 * incident that occurs again regresses; an ignored one opens again when its time or count is up.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { incidentGroupKey, type NewLogRecord, type Store } from '@switchboard/store';
import { expectedIncidentGroups, openTestStore, type ReferenceLog, seededRandom } from '@switchboard/store/testing';
import { Incidents, type IncidentRow } from './incidents';

/** Small deterministic PRNG so a failure reproduces. */
const W_START = '2026-04-01T00:00:00.000Z';
const W_END = '2026-04-02T00:00:00.000Z';
const LEVELS = ['debug', 'info', 'warn', 'error', 'fatal'];

let dir: string;
let store: Store;
let now = W_END;
let stateChanges = 0;
let incidents: Incidents;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-incidents-'));
  store = await openTestStore(dir);
  incidents = new Incidents(store, { now: () => new Date(now) }, () => stateChanges++);
});

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

function logRecord(i: number, fields: Partial<NewLogRecord> & Pick<NewLogRecord, 'ts' | 'component' | 'level_rank'>): NewLogRecord {
  return {
    log_id: `log-${String(i).padStart(4, '0')}`,
    level: LEVELS[fields.level_rank]!,
    error_code: null,
    message: `message ${i}`,
    is_mcp: fields.component.startsWith('mcp.') ? 1 : 0,
    event_id: null,
    run_id: null,
    delivery_id: null,
    dead_letter_id: null,
    entity_id: null,
    session_id: null,
    ...fields,
  };
}

describe('Incidents.page', () => {
  const logs: ReferenceLog[] = [];

  beforeAll(async () => {
    const r = seededRandom(7);
    const components = ['dispatcher', 'agent.triage-agent', 'mcp.payments', 'mcp.crm', 'ingress'];
    const codes = ['DELIVERY_RETRY', 'DEAD_LETTER', 'MCP_TOOL_ERROR', null];
    const rows: NewLogRecord[] = [];
    for (let i = 0; i < 600; i++) {
      // Some records fall outside the window on either side.
      const ts = new Date(Date.parse(W_START) - 3 * 3600_000 + Math.floor(r() * 30 * 3600_000)).toISOString();
      const level_rank = Math.floor(r() * 5);
      const component = components[Math.floor(r() * components.length)]!;
      const error_code = codes[Math.floor(r() * codes.length)]!;
      const row = logRecord(i, { ts, level_rank, component, error_code });
      rows.push(row);
      logs.push({ ...row, error_code, seq: i + 1 });
    }
    // Through the log repository, so the hourly incident rollup is kept as the runtime keeps it.
    await store.transaction(async (trx) => {
      for (const row of rows) await store.logs.write(row, trx);
    });
  });

  const expectedGroups = (opts: { component?: string; mcpOnly?: boolean; sort: 'last_seen' | 'count' }) =>
    expectedIncidentGroups(logs, { windowStart: W_START, windowEnd: W_END, ...opts });

  async function walkIncidents(opts: { component?: string; mcpOnly?: boolean; sort: 'last_seen' | 'count' }, limit: number) {
    const rows: IncidentRow[] = [];
    let after;
    for (let i = 0; i < 100; i++) {
      const page = await incidents.page({ windowStart: W_START, windowEnd: W_END, ...opts, limit, after, histogramBuckets: 24 });
      rows.push(...page.incidents);
      if (!page.next) return rows;
      after = page.next;
    }
    throw new Error('walk did not end');
  }

  for (const opts of [
    { sort: 'last_seen' as const },
    { sort: 'count' as const },
    { sort: 'last_seen' as const, mcpOnly: true },
    { sort: 'count' as const, component: 'dispatcher' },
  ]) {
    it(`groups by (component, error_code) and pages: ${JSON.stringify(opts)}`, async () => {
      const want = expectedGroups(opts);
      expect(want.length).toBeGreaterThan(2);
      const got = await walkIncidents(opts, 3);
      // These records name no cause: every group's cause key is ''.
      expect(got.every((g) => g.cause_key === '')).toBe(true);
      expect(got.map(({ histogram: _h, state: _s, trend: _t, cause_key: _c, ...rest }) => rest)).toEqual(want.map(({ times: _t, ...rest }) => rest));
      // No state was set: all open. Trend: the last hour's count against the window's hourly mean.
      const lastHour = Date.parse(W_END) - 3600_000;
      for (const [i, g] of got.entries()) {
        expect(g.state).toEqual({ state: 'open', regressed: false });
        const recent = want[i]!.times.filter((ts) => Date.parse(ts) >= lastHour).length;
        expect(g.trend).toBeCloseTo(recent / (g.count / 24), 2);
      }
      for (const [i, g] of got.entries()) {
        const h = g.histogram!;
        expect(h).toHaveLength(24);
        expect(h.reduce((a, b) => a + b, 0)).toBe(g.count);
        const hourOf = (ts: string) => Math.floor((Date.parse(ts) - Date.parse(W_START)) / 3600_000);
        const wantH = new Array(24).fill(0);
        for (const ts of want[i]!.times) wantH[hourOf(ts)]++;
        expect(h).toEqual(wantH);
      }
      if (opts.mcpOnly) expect(got.every((g) => g.component.startsWith('mcp.'))).toBe(true);
    });
  }

  it('sorts by severity, first seen and trend with the same tie-breaks, and pages them without gaps', async () => {
    for (const sort of ['severity', 'first_seen', 'trend'] as const) {
      const all = (await incidents.page({ windowStart: W_START, windowEnd: W_END, sort, limit: 500, histogramBuckets: 0 })).incidents;
      const key = (g: IncidentRow) => (sort === 'severity' ? g.level_rank : sort === 'trend' ? g.trend : g.first_seen);
      for (let i = 1; i < all.length; i++) expect(key(all[i - 1]!) >= key(all[i]!), sort).toBe(true);
      const paged: IncidentRow[] = [];
      let after;
      do {
        const page = await incidents.page({ windowStart: W_START, windowEnd: W_END, sort, limit: 4, after, histogramBuckets: 0 });
        paged.push(...page.incidents);
        after = page.next;
      } while (after);
      expect(paged.map((g) => incidentGroupKey(g))).toEqual(all.map((g) => incidentGroupKey(g)));
    }
  });
});

describe('incident lifecycle', () => {
  const T0 = '2026-05-01T10:00:00.000Z';
  const at = (minutes: number) => new Date(Date.parse(T0) + minutes * 60_000).toISOString();
  let seq = 1000;
  const occur = (component: string, minutes: number) =>
    store.transaction(async (trx) => {
      await store.logs.write(logRecord(seq++, { ts: at(minutes), component, level_rank: 3, error_code: 'BOOM' }), trx);
    });
  const idOf = async (component: string) => {
    const { incidents: rows } = await incidents.page({ windowStart: at(-60), windowEnd: at(600), component, sort: 'last_seen', limit: 5, histogramBuckets: 0, now });
    return rows[0]!;
  };
  const incidentIdOf = (component: string) => `inc_${Buffer.from(JSON.stringify([component, 'BOOM'])).toString('base64url')}`;
  const update = (component: string, minutes: number, change: { state: 'open' | 'acknowledged' | 'resolved' | 'ignored'; ignore_until?: string; ignore_occurrences?: number; note?: string }) => {
    now = at(minutes);
    return incidents.update({ incident_id: incidentIdOf(component), actorTokenId: 'tok-1', ...change });
  };

  it('a resolved incident that occurs again is open and regressed, and its activity says when', async () => {
    await occur('svc.resolve', 0);
    const changesBefore = stateChanges;
    expect(await update('svc.resolve', 5, { state: 'resolved', note: '  fixed  ' })).toEqual({ incident_id: incidentIdOf('svc.resolve'), state: 'resolved', regressed: false, state_changed_at: at(5) });
    expect(stateChanges).toBe(changesBefore + 1);
    expect((await idOf('svc.resolve')).state).toEqual({ state: 'resolved', regressed: false, changed_at: at(5), actor_token_id: 'tok-1', note: 'fixed' });
    await occur('svc.resolve', 7);
    await occur('svc.resolve', 8);
    now = at(9);
    expect((await idOf('svc.resolve')).state).toEqual({ state: 'open', regressed: true, regressed_at: at(7), changed_at: at(5), actor_token_id: 'tok-1', note: 'fixed' });
    expect((await incidents.page({ windowStart: at(-60), windowEnd: at(600), sort: 'last_seen', states: ['regressed'], limit: 50, histogramBuckets: 0, now })).incidents.map((i) => i.component)).toEqual(['svc.resolve']);
    // Resolved again after the regression; nothing since: no second regression.
    await update('svc.resolve', 10, { state: 'resolved' });
    const activity = await incidents.activity(incidentIdOf('svc.resolve'));
    expect(activity?.map((a) => [a.ts, a.action, a.actor_token_id])).toEqual([
      [at(5), 'resolved', 'tok-1'],
      [at(7), 'regressed', 'runtime'],
      [at(10), 'resolved', 'tok-1'],
    ]);
  });

  it('an ignored incident opens again after its time, or after its count of new occurrences', async () => {
    await occur('svc.until', 0);
    await update('svc.until', 1, { state: 'ignored', ignore_until: at(30) });
    now = at(29);
    expect((await idOf('svc.until')).state).toMatchObject({ state: 'ignored', ignore_until: at(30) });
    now = at(30);
    expect((await idOf('svc.until')).state).toEqual({ state: 'open', regressed: false, changed_at: at(1), actor_token_id: 'tok-1', note: null });

    await occur('svc.count', 0);
    await update('svc.count', 1, { state: 'ignored', ignore_occurrences: 2 });
    await occur('svc.count', 2);
    now = at(3);
    expect((await idOf('svc.count')).state).toMatchObject({ state: 'ignored', ignore_remaining: 1 });
    await occur('svc.count', 4);
    now = at(5);
    expect((await idOf('svc.count')).state).toMatchObject({ state: 'open', regressed: false });
    // Open at the window's end: both ignored incidents; the resolved one (no occurrence since) is not.
    expect(await incidents.openCountsByLevel({ windowStart: at(-60), windowEnd: at(31) })).toEqual(new Map([[3, 2]]));
    expect(await incidents.openCountsByLevel({ windowStart: at(-60), windowEnd: at(5) })).toEqual(new Map([[3, 1]]));
  });

  it('refuses an unknown incident, ignore options on another state, and an ignore time in the past', async () => {
    await occur('svc.refuse', 0);
    await expect(incidents.update({ incident_id: incidentIdOf('svc.nothing'), state: 'resolved', actorTokenId: 'tok-1' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(update('svc.refuse', 1, { state: 'resolved', ignore_occurrences: 3 })).rejects.toMatchObject({ code: 'INVALID_PARAMS', details: { field: 'ignore_occurrences' } });
    await expect(update('svc.refuse', 1, { state: 'ignored', ignore_until: at(1) })).rejects.toMatchObject({ code: 'INVALID_PARAMS', details: { field: 'ignore_until' } });
    expect(await incidents.activity(incidentIdOf('svc.nothing'))).toBeUndefined();
    expect(await incidents.activity(incidentIdOf('svc.refuse'))).toEqual([]);
  });
});
