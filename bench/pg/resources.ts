/** PostgreSQL databases, SQLite folders, worktrees and fill processes this run made, removed however it ends. */
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { PostgresAdmin, testPostgres } from '@switchboard/testkit';
import { stop, stopAll } from '../rounds';
import { root } from './settings';

export const adminUrl = await findAdminUrl();
export const madeDatabases = new Set<string>();
export const madeDirs = new Set<string>();
/** Fill processes still running (startProcess's servers are tracked by rounds.ts). */
export const fills = new Set<ChildProcess>();

async function findAdminUrl(): Promise<string> {
  if (process.env.BENCH_DATABASE_URL) return process.env.BENCH_DATABASE_URL;
  const found = testPostgres();
  if (!found.url) {
    console.error(`bench:pg needs PostgreSQL (set BENCH_DATABASE_URL to a role that may create databases): ${found.reason}`);
    process.exit(1);
  }
  return found.url;
}

const admin = new PostgresAdmin(adminUrl);

export function asAdmin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  return admin.run(fn);
}

export function urlOf(database: string): string {
  return admin.urlOf(database);
}

export function databaseExists(name: string): Promise<boolean> {
  return admin.exists(name);
}

/** Like the tests' databases: C collation, so text order is byte order as on SQLite. */
export async function createDatabase(name: string, dropAfter = true): Promise<string> {
  const url = await admin.create(name);
  if (dropAfter) madeDatabases.add(name);
  return url;
}

export async function dropDatabase(name: string): Promise<void> {
  await admin.drop(name);
  madeDatabases.delete(name);
}

export function makeDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  madeDirs.add(dir);
  return dir;
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  madeDirs.delete(dir);
}

/** Worktrees this run added (the data-path baseline), removed with their folders. */
export const madeWorktrees = new Set<string>();

export async function cleanUp(): Promise<void> {
  await Promise.all([stopAll(), ...[...fills].map((child) => stop(child, 5_000))]);
  for (const dir of madeWorktrees) spawnSync('git', ['-C', root, 'worktree', 'remove', '--force', dir]);
  for (const name of madeDatabases) await dropDatabase(name).catch((err: Error) => console.error(`could not drop database ${name}: ${err.message}`));
  for (const dir of madeDirs) removeDir(dir);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`\n${signal}: stopping the servers and dropping this run's databases`);
    void cleanUp().finally(() => process.exit(130));
  });
}
