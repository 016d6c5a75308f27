/**
 * A PostgreSQL database of a spec's own, for servers that share one (several servers): found the way
 * the store suites find theirs (SWITCHBOARD_TEST_DATABASE_URL, or a local cluster), created for
 * the spec and dropped after it (the testkit's spec databases, named sb_test_e2e_…).
 */
export { createSpecDatabase, testPostgres, type SpecDatabase } from '@switchboard/testkit';
