/**
 * A throwaway PostgreSQL cluster of one test's own, on a free loopback port, that the test may
 * restart without disturbing the shared test server. Needs the Debian server binaries and root
 * (initdb and postgres run as the `postgres` user through runuser).
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from '@switchboard/testkit';

const run = promisify(execFile);

export interface PrivatePostgres {
  /** URL of its database `chaos` (C collation, as the store expects). */
  url: string;
  /** Crashes the server (every backend killed at once, no checkpoint) and starts it again on the same port: recovery replays the WAL. */
  crashAndRestart(): Promise<void>;
  dispose(): Promise<void>;
}

/** Why a private cluster cannot be started here, or undefined when it can. */
export function privatePostgresUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'not running as root (initdb and pg_ctl must run as the postgres user)';
  if (!serverBin()) return 'no PostgreSQL server binaries under /usr/lib/postgresql (apt-get install -y postgresql)';
  return undefined;
}

function serverBin(): string | undefined {
  const base = '/usr/lib/postgresql';
  if (!fs.existsSync(base)) return undefined;
  const versions = fs.readdirSync(base).filter((v) => fs.existsSync(path.join(base, v, 'bin', 'pg_ctl')));
  const newest = versions.sort((x, y) => Number(y) - Number(x))[0];
  return newest ? path.join(base, newest, 'bin') : undefined;
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = serverBin()!;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-chaos-pg-'));
  const { uid, gid } = await postgresUser();
  fs.chownSync(home, uid, gid);
  const dataDir = path.join(home, 'data');
  const asPostgres = (tool: string, args: string[]) => run('runuser', ['-u', 'postgres', '--', path.join(bin, tool), ...args], { timeout: 60_000 });
  await asPostgres('initdb', ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C', '--no-sync']);
  const port = await freePort();
  const serverOptions = `-p ${port} -k ${home} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  const pgCtl = (...args: string[]) => asPostgres('pg_ctl', ['-D', dataDir, '-l', path.join(home, 'server.log'), '-o', serverOptions, '-w', '-t', '30', ...args]);
  await pgCtl('start');
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query(`create database chaos template template0 encoding 'UTF8' lc_collate 'C' lc_ctype 'C'`);
  await admin.end();
  return {
    url: `postgres://postgres@127.0.0.1:${port}/chaos`,
    async crashAndRestart() {
      await pgCtl('-m', 'immediate', 'restart');
    },
    async dispose() {
      await pgCtl('-m', 'immediate', 'stop').catch(() => undefined);
      fs.rmSync(home, { recursive: true, force: true });
    },
  };
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([run('id', ['-u', 'postgres']), run('id', ['-g', 'postgres'])]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}
