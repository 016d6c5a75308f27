/**
 * Multi-row inserts on PostgreSQL with one text whatever the row count: the rows travel as one
 * JSON array that json_populate_recordset turns into the table's row type, so the statement is
 * prepared once per connection (`prepared`) and compiled once per table and columns (compiledOnce).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../schema';
import { prepared, sentWithNext } from '../../prepared-statements';
import { compiledOnce } from '../../compiled-once';

/**
 * Text JSON cannot carry to PostgreSQL the way a bound parameter does: a lone surrogate (which
 * JSON.stringify escapes, and PostgreSQL's JSON parser refuses, where a parameter is sent with
 * U+FFFD) and NUL. Such rows (or an escaped backslash that looks like one) go as a VALUES list.
 */
const NOT_AS_JSON = /\\u(0000|d[89a-f])/i;

/**
 * The rows as `{ columns, json }` when they can be inserted from JSON: every row sets the same
 * columns (a column some rows leave out takes its default, which a JSON null would not).
 */
export function rowsAsJson(rows: readonly object[]): { columns: string[]; json: string } | undefined {
  if (rows.length === 0) return undefined;
  const columns = Object.keys(rows[0]!).filter((c) => (rows[0] as Record<string, unknown>)[c] !== undefined);
  for (const row of rows) {
    let set = 0;
    for (const c in row) if ((row as Record<string, unknown>)[c] !== undefined) set++;
    if (set !== columns.length) return undefined;
    for (const c of columns) if ((row as Record<string, unknown>)[c] === undefined) return undefined;
  }
  const json = JSON.stringify(rows);
  if (NOT_AS_JSON.test(json)) return undefined;
  return { columns, json };
}

/**
 * Inserts rows from JSON, in array order (so a serial column follows it), returning `returning`
 * of each inserted row. `table` and the columns are this package's identifiers, never input.
 */
export async function insertFromJson<R>(
  trx: Kysely<Database>,
  table: keyof Database & string,
  rows: { columns: string[]; json: string },
  returning: readonly string[] = [],
  { withNext = false }: { withNext?: boolean } = {},
): Promise<R[]> {
  const shape = `${table} (${rows.columns.join()}) returning ${returning.join()}${withNext ? ' with next' : ''}`;
  let insert = insertsByShape.get(shape);
  if (!insert) insertsByShape.set(shape, (insert = insertStatement(table, rows.columns, returning, withNext)));
  return (await insert(trx, rows.json)).rows as R[];
}

/** One statement per table, columns and returned columns: a handful, from this package's call sites. */
const insertsByShape = new Map<string, ReturnType<typeof insertStatement>>();

/** `withNext`: the statement is sent with the next one (sentWithNext); for rows nothing reads back. */
function insertStatement(table: keyof Database & string, columnNames: readonly string[], returning: readonly string[], withNext: boolean) {
  const columns = sql.join(columnNames.map((c) => sql.ref(c)));
  const back = returning.length > 0 ? sql` returning ${sql.join(returning.map((c) => sql.ref(c)))}` : sql``;
  const held = withNext ? sentWithNext : sql``;
  return compiledOnce((_db, json: string) =>
    sql`insert into ${sql.table(table)} (${columns}) select ${columns} from json_populate_recordset(null::${sql.table(table)}, ${json}) with ordinality as r order by r.ordinality${back}${held}${prepared}`,
  );
}

/**
 * Events and their deliveries in one statement (PostgreSQL): the events are inserted from JSON in
 * array order (their seqs follow it), and each delivery takes its event's seq from that insert, so
 * the deliveries' rows travel without it and need not wait for the events' answer: a round trip
 * fewer per publish than inserting the events, reading their seqs, then inserting the deliveries.
 * Returns each event's id and seq.
 */
export async function insertEventsWithDeliveries(
  trx: Kysely<Database>,
  events: { columns: string[]; json: string },
  deliveries: { columns: string[]; json: string },
): Promise<{ event_id: string; seq: number }[]> {
  const shape = `${events.columns.join()} / ${deliveries.columns.join()}`;
  let insert = eventsWithDeliveriesByShape.get(shape);
  if (!insert) eventsWithDeliveriesByShape.set(shape, (insert = eventsWithDeliveriesStatement(events.columns, deliveries.columns)));
  return (await insert(trx, events.json, deliveries.json)).rows;
}

const eventsWithDeliveriesByShape = new Map<string, ReturnType<typeof eventsWithDeliveriesStatement>>();

function eventsWithDeliveriesStatement(eventColumnNames: readonly string[], deliveryColumnNames: readonly string[]) {
  const eventColumns = sql.join(eventColumnNames.map((c) => sql.ref(c)));
  const deliveryColumns = sql.join(deliveryColumnNames.map((c) => sql.ref(c)));
  const fromRow = sql.join(deliveryColumnNames.map((c) => sql.ref(`r.${c}`)));
  return compiledOnce((_db, eventsJson: string, deliveriesJson: string) =>
    sql<{ event_id: string; seq: number }>`with e as (
      insert into events (${eventColumns}) select ${eventColumns} from json_populate_recordset(null::events, ${eventsJson}) with ordinality as r order by r.ordinality
      returning event_id, seq
    ), d as (
      insert into deliveries (${deliveryColumns}, event_seq)
      select ${fromRow}, e.seq from json_populate_recordset(null::deliveries, ${deliveriesJson}) with ordinality as r join e on e.event_id = r.event_id order by r.ordinality
    )
    select event_id, seq from e${prepared}`,
  );
}
