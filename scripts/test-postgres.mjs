// Finds (or starts) a PostgreSQL server for the store and runtime suites and prints the admin URL
// the tests use (SWITCHBOARD_TEST_DATABASE_URL). Order: that variable if set; otherwise a local
// Debian cluster (pg_lsclusters), started as its own user if it is down, with a test role created
// once. Prints nothing and exits 1 when neither is available.
import { spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const ROLE = 'switchboard_test';

export function findTestPostgres() {
  if (process.env.SWITCHBOARD_TEST_DATABASE_URL) return { url: process.env.SWITCHBOARD_TEST_DATABASE_URL };
  const clusters = spawnSync('pg_lsclusters', ['--no-header'], { encoding: 'utf8' });
  if (clusters.status !== 0) return { reason: 'no PostgreSQL found (pg_lsclusters is missing; apt-get install -y postgresql)' };
  const line = clusters.stdout.split('\n').find((l) => l.trim());
  if (!line) return { reason: 'PostgreSQL is installed but has no cluster (pg_createcluster 15 main)' };
  const [version, name, port, status] = line.trim().split(/\s+/);
  if (status !== 'online') {
    // pg_ctlcluster switches to the cluster's owner itself, so this works as root too.
    const started = spawnSync('pg_ctlcluster', [version, name, 'start'], { encoding: 'utf8' });
    if (started.status !== 0) return { reason: `could not start PostgreSQL ${version}/${name}: ${started.stderr.trim()}` };
  }
  const sql = `do $$ begin if not exists (select from pg_roles where rolname = '${ROLE}') then create role ${ROLE} login createdb password '${ROLE}'; end if; end $$;`;
  const asOwner = process.getuid?.() === 0 ? ['su', ['postgres', '-c', `psql -p ${port} -qAtc "${sql.replace(/\$/g, '\\$')}"`]] : ['psql', ['-p', port, '-qAtc', sql]];
  const role = spawnSync(asOwner[0], asOwner[1], { encoding: 'utf8' });
  if (role.status !== 0) return { reason: `could not create the test role: ${role.stderr.trim()}` };
  return { url: `postgres://${ROLE}:${ROLE}@127.0.0.1:${port}/postgres` };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = findTestPostgres();
  if (found.url) console.log(found.url);
  else {
    console.error(found.reason);
    process.exit(1);
  }
}

/**
 * Drops the databases the tests created (named sb_test_…), so runs do not accumulate them. Each
 * DROP DATABASE waits for a checkpoint of its own: with fsync on, a pass's 245 took about 40 s one
 * by one, and eight at a time took about a quarter less (CI turns fsync off, see .ci/run).
 */
export async function dropTestDatabases(url, parallel = 8) {
  const names = await listTestDatabases(url);
  await dropDatabases(url, names, parallel);
  return names.length;
}

/** The test databases there are now; with `keepTemplates`, not the migrated templates they are copied from. */
export async function listTestDatabases(url, { keepTemplates = false } = {}) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const templates = keepTemplates ? " and datname not like 'sb\\_test\\_template\\_%'" : '';
    return (await client.query(`select datname from pg_database where datname like 'sb\\_test\\_%'${templates}`)).rows.map((r) => r.datname);
  } finally {
    await client.end();
  }
}

/** Drops these databases, `parallel` at a time. */
export async function dropDatabases(url, names, parallel = 8) {
  const { default: pg } = await import('pg');
  const queue = [...names];
  const dropper = async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) await dropDatabase(client, name);
    } finally {
      await client.end();
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, dropper));
}

/**
 * Drops a database, ending the sessions still connected to it (a killed test server's). PostgreSQL
 * 15 refuses `WITH (FORCE)` to a role that is not superuser while an autovacuum worker is in that
 * database (its process has no role the caller is a member of); a plain drop makes the worker quit,
 * so the two are tried in turn for up to 10 s.
 */
export async function dropDatabase(client, name) {
  const deadline = Date.now() + 10_000;
  for (let attempt = 0; ; attempt++) {
    try {
      await client.query(`drop database if exists "${name}"${attempt % 2 === 0 ? ' with (force)' : ''}`);
      return;
    } catch (err) {
      // 42501: an autovacuum worker is in it (see above); 55006: another session still is.
      if (!['42501', '55006'].includes(err.code) || Date.now() > deadline) throw err;
      await sleep(100);
    }
  }
}
