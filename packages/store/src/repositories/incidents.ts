import { sql, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type Selectable, type SqlBool } from 'kysely';
import type { Database, LogsTable } from '../schema';

/** Log records at or above this rank (warn) are incidents; debug and info are not. */
export const INCIDENT_MIN_LEVEL_RANK = 2;

export interface IncidentKey {
  component: string;
  error_code: string | null;
}

export interface IncidentQuery {
  /** Inclusive start and exclusive end of the look-back window. */
  windowStart: string;
  windowEnd: string;
  component?: string;
  mcpOnly?: boolean;
  sort: 'last_seen' | 'count';
  limit: number;
  after?: IncidentPosition;
  /** Equal buckets across the window; 0 leaves histograms out. */
  histogramBuckets: number;
}

/** Where a page ended in (sort key DESC, last_seen DESC, component, error_code) order. */
export interface IncidentPosition {
  count: number;
  last_seen: string;
  component: string;
  error_code: string | null;
}

export interface IncidentRow extends IncidentKey {
  count: number;
  first_seen: string;
  last_seen: string;
  level_rank: number;
  sample_message: string;
  /** Up to five, latest first. */
  sample_log_ids: string[];
  histogram?: number[];
}

export interface IncidentPage {
  incidents: IncidentRow[];
  next?: IncidentPosition;
}

export type LogRow = Selectable<LogsTable>;

const SAMPLE_SIZE = 5;

/**
 * runtime.incidents: warn-and-above log records grouped by (component, error_code) inside a
 * window. The groups are aggregated from the window's index entries in one query; the page's
 * samples and histograms take one further query each, whatever the page size.
 */
export class IncidentRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async page(q: IncidentQuery): Promise<IncidentPage> {
    const count = sql<number>`count(*)`;
    const lastSeen = sql<string>`max(${sql.ref('ts')})`;
    const codeKey = sql<string>`coalesce(${sql.ref('error_code')}, '')`;
    let query = this.db
      .selectFrom('logs')
      .select([
        'component',
        'error_code',
        count.as('n'),
        sql<string>`min(${sql.ref('ts')})`.as('first_seen'),
        lastSeen.as('last_seen'),
        sql<number>`max(${sql.ref('level_rank')})`.as('level_rank'),
      ])
      .where((eb) => eb.and(this.windowConditions(eb, q)))
      .groupBy(['component', 'error_code']);
    if (q.after) {
      const a = q.after;
      const tie = sql<SqlBool>`(${sql.ref('component')} > ${a.component} or (${sql.ref('component')} = ${a.component} and ${codeKey} > ${a.error_code ?? ''}))`;
      const byLastSeen = sql<SqlBool>`(${lastSeen} < ${a.last_seen} or (${lastSeen} = ${a.last_seen} and ${tie}))`;
      query = query.having(
        q.sort === 'count' ? sql<SqlBool>`(${count} < ${a.count} or (${count} = ${a.count} and ${byLastSeen}))` : byLastSeen,
      );
    }
    if (q.sort === 'count') query = query.orderBy(count, 'desc');
    const groups = await query
      .orderBy(lastSeen, 'desc')
      .orderBy('component')
      .orderBy(codeKey)
      .limit(q.limit + 1)
      .execute();

    const pageGroups = groups.slice(0, q.limit);
    const [samples, histograms] = await Promise.all([this.samples(q, pageGroups), this.histograms(q, pageGroups)]);
    const incidents = pageGroups.map((g): IncidentRow => {
      const key = groupKey(g);
      const sample = samples.get(key) ?? [];
      const row: IncidentRow = {
        component: g.component,
        error_code: g.error_code,
        count: Number(g.n),
        first_seen: g.first_seen,
        last_seen: g.last_seen,
        level_rank: Number(g.level_rank),
        sample_message: sample[0]?.message ?? '',
        sample_log_ids: sample.map((s) => s.log_id),
      };
      if (q.histogramBuckets > 0) row.histogram = histograms.get(key) ?? new Array<number>(q.histogramBuckets).fill(0);
      return row;
    });
    const last = incidents[incidents.length - 1];
    if (groups.length > q.limit && last) {
      return {
        incidents,
        next: { count: last.count, last_seen: last.last_seen, component: last.component, error_code: last.error_code },
      };
    }
    return { incidents };
  }

  /** Log records of one group inside the window, latest first. */
  async logs(key: IncidentKey, window: { windowStart: string; windowEnd: string }, limit: number): Promise<LogRow[]> {
    return this.db
      .selectFrom('logs')
      .selectAll()
      .where((eb) =>
        eb.and([
          sql<SqlBool>`${sql.ref('level_rank')} >= ${sql.lit(INCIDENT_MIN_LEVEL_RANK)}`,
          eb('component', '=', key.component),
          key.error_code === null ? eb('error_code', 'is', null) : eb('error_code', '=', key.error_code),
          eb('ts', '>=', window.windowStart),
          eb('ts', '<', window.windowEnd),
        ]),
      )
      .orderBy('ts', 'desc')
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
  }

  private windowConditions(eb: ExpressionBuilder<Database, 'logs'>, q: Pick<IncidentQuery, 'windowStart' | 'windowEnd' | 'component' | 'mcpOnly'>) {
    // Literals, so SQLite can match the partial indexes (level_rank >= 2, is_mcp = 1).
    const c: Expression<SqlBool>[] = [
      sql<SqlBool>`${sql.ref('level_rank')} >= ${sql.lit(INCIDENT_MIN_LEVEL_RANK)}`,
      eb('ts', '>=', q.windowStart),
      eb('ts', '<', q.windowEnd),
    ];
    if (q.component !== undefined) c.push(eb('component', '=', q.component));
    if (q.mcpOnly) c.push(sql<SqlBool>`${sql.ref('is_mcp')} = 1`);
    return c;
  }

  private inGroups(eb: ExpressionBuilder<Database, 'logs'>, groups: IncidentKey[]): Expression<SqlBool> {
    return eb.or(
      groups.map((g) =>
        eb.and([eb('component', '=', g.component), g.error_code === null ? eb('error_code', 'is', null) : eb('error_code', '=', g.error_code)]),
      ),
    );
  }

  /** Latest records of each page group: one windowed query for the whole page. */
  private async samples(q: IncidentQuery, groups: IncidentKey[]): Promise<Map<string, { log_id: string; message: string }[]>> {
    const out = new Map<string, { log_id: string; message: string }[]>();
    if (groups.length === 0) return out;
    // Ranked on the covering index alone; only the winners' rows are then read for their message.
    const ranked = this.db
      .selectFrom('logs')
      .select([
        'seq',
        sql<number>`row_number() over (partition by ${sql.ref('component')}, ${sql.ref('error_code')} order by ${sql.ref('ts')} desc, ${sql.ref('seq')} desc)`.as('rn'),
      ])
      .where((eb) => eb.and([...this.windowConditions(eb, q), this.inGroups(eb, groups)]));
    const rows = await this.db
      .selectFrom(ranked.as('r'))
      .innerJoin('logs as l', 'l.seq', 'r.seq')
      .select(['l.component', 'l.error_code', 'l.log_id', 'l.message', 'r.rn'])
      .where('r.rn', '<=', SAMPLE_SIZE)
      .orderBy('r.rn')
      .execute();
    for (const r of rows) {
      const key = groupKey(r);
      const list = out.get(key) ?? [];
      list.push({ log_id: r.log_id, message: r.message });
      out.set(key, list);
    }
    return out;
  }

  /** Counts per equal time bucket for each page group: one grouped query for the whole page. */
  private async histograms(q: IncidentQuery, groups: IncidentKey[]): Promise<Map<string, number[]>> {
    const out = new Map<string, number[]>();
    const buckets = q.histogramBuckets;
    if (groups.length === 0 || buckets <= 0) return out;
    const start = Date.parse(q.windowStart);
    const width = (Date.parse(q.windowEnd) - start) / buckets;
    // Bucket boundaries as ISO text, so the bucket is a portable CASE over the ts column.
    const bounds = Array.from({ length: buckets - 1 }, (_, i) => new Date(Math.floor(start + width * (i + 1))).toISOString());
    const bucket: RawBuilder<number> =
      bounds.length === 0
        ? sql<number>`0`
        : sql<number>`case ${sql.join(
            bounds.map((b, i) => sql`when ${sql.ref('ts')} < ${b} then ${sql.lit(i)}`),
            sql` `,
          )} else ${sql.lit(buckets - 1)} end`;
    // Bucketed in a derived table, so the GROUP BY names a column rather than repeating the CASE.
    const bucketed = this.db
      .selectFrom('logs')
      .select(['component', 'error_code', bucket.as('bucket')])
      .where((eb) => eb.and([...this.windowConditions(eb, q), this.inGroups(eb, groups)]));
    const rows = await this.db
      .selectFrom(bucketed.as('b'))
      .select(['b.component', 'b.error_code', 'b.bucket', sql<number>`count(*)`.as('n')])
      .groupBy(['b.component', 'b.error_code', 'b.bucket'])
      .execute();
    for (const r of rows) {
      const key = groupKey(r);
      const h = out.get(key) ?? new Array<number>(buckets).fill(0);
      h[Number(r.bucket)] = Number(r.n);
      out.set(key, h);
    }
    return out;
  }
}

function groupKey(g: IncidentKey): string {
  return JSON.stringify([g.component, g.error_code]);
}
