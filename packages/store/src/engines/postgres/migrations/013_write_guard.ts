import { sql, type Kysely } from 'kysely';

/** The SQLSTATE `refuse_writes_while_locked` raises (see refusedByGuard). */
export const WRITE_GUARD_REFUSED = 'SB001';

/**
 * PostgreSQL: `refuse_writes_while_locked(key, now, refuse_key, refuse_value)` takes a share lock
 * on `key`'s row, as a guarded write's read of the reset lock does, and raises WRITE_GUARD_REFUSED
 * while that row holds an unexpired lock (the claim's test: JSON whose `expires_at` is after `now`)
 * or while `refuse_key` has the value `refuse_value`. A publish sends it with its inserts instead
 * of reading the lock first (RuntimeStateRepository.refuseWithNextWhileLocked): one round trip
 * fewer, and when it raises, the publish runs again with the read, which says why.
 */
export function writeGuardSteps() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await sql`
        create or replace function refuse_writes_while_locked(p_key text, p_now text, p_refuse_key text, p_refuse_value text)
        returns void language plpgsql volatile as $$
        declare
          locked text;
        begin
          select value into locked from runtime_state where key = p_key for share;
          if locked like '{%' and (locked::json ->> 'expires_at') > p_now then
            raise exception 'runtime_state % is locked', p_key using errcode = '${sql.raw(WRITE_GUARD_REFUSED)}';
          end if;
          if exists (select 1 from runtime_state where key = p_refuse_key and value = p_refuse_value) then
            raise exception 'runtime_state % is %', p_refuse_key, p_refuse_value using errcode = '${sql.raw(WRITE_GUARD_REFUSED)}';
          end if;
        end $$`.execute(db);
    },
    async down(db: Kysely<any>): Promise<void> {
      await sql`drop function refuse_writes_while_locked(text, text, text, text)`.execute(db);
    },
  };
}
