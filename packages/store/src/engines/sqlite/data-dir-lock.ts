/**
 * One server process per data folder. The lock is an SQLite database in the folder held in
 * exclusive locking mode: the operating system drops it when the holder dies, even by SIGKILL, so
 * a crashed server never leaves the folder locked. The holder's pid is written beside it so the
 * refusal can name it. Short-lived writers (the token CLI) open the store itself, not this lock.
 */
import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

export const LOCK_FILE_NAME = 'switchboard.lock';
const PID_FILE_NAME = 'switchboard.pid';

export class DataDirInUseError extends Error {
  constructor(
    readonly dataDir: string,
    readonly holderPid: number | undefined,
  ) {
    super(
      `the data folder ${dataDir} is in use by another Switchboard server${holderPid ? ` (pid ${holderPid})` : ''}; ` +
        'stop it first, or give this one another SWITCHBOARD_DATA_DIR',
    );
    this.name = 'DataDirInUseError';
  }
}

export interface DataDirLock {
  release(): void;
}

export function lockDataDir(dataDir: string): DataDirLock {
  fs.mkdirSync(dataDir, { recursive: true });
  const pidFile = path.join(dataDir, PID_FILE_NAME);
  const db = new BetterSqlite3(path.join(dataDir, LOCK_FILE_NAME), { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('CREATE TABLE IF NOT EXISTS holder (pid INTEGER)');
    // The first write in exclusive locking mode takes the file lock and keeps it until close.
    db.exec('BEGIN EXCLUSIVE; DELETE FROM holder; COMMIT');
  } catch (err) {
    db.close();
    if ((err as { code?: string }).code?.startsWith('SQLITE_BUSY')) {
      const pid = Number.parseInt(fs.readFileSync(pidFile, { encoding: 'utf8', flag: 'a+' }).trim(), 10);
      throw new DataDirInUseError(dataDir, Number.isFinite(pid) ? pid : undefined);
    }
    throw err;
  }
  fs.writeFileSync(pidFile, `${process.pid}\n`);
  return {
    release() {
      if (!db.open) return;
      fs.rmSync(pidFile, { force: true });
      db.close();
    },
  };
}
