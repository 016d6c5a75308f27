/**
 * One server process per PostgreSQL database (until the multi-process work of issue #10): a second
 * lock on the same database is refused naming the holder, and the lock ends with its holder.
 * Runs in the PostgreSQL pass of the suite (SWITCHBOARD_TEST_DATABASE_URL).
 */
import { describe, expect, it } from 'vitest';
import { DatabaseInUseError, lockDatabase } from '@switchboard/store';
import { TEST_DATABASE_URL_ENV, testEngine } from '@switchboard/store/testing';

describe.runIf(testEngine() === 'postgres')('lockDatabase', () => {
  it('refuses a second holder, naming the first, and admits one again once it is released', async () => {
    const url = process.env[TEST_DATABASE_URL_ENV]!;
    const first = await lockDatabase(url);
    try {
      const second = lockDatabase(url);
      await expect(second).rejects.toBeInstanceOf(DatabaseInUseError);
      await expect(second).rejects.toThrow(/in use by another Switchboard server \(PostgreSQL backend pid \d+\)/);
    } finally {
      first.release();
    }
    // The release ends the holder's connection; PostgreSQL drops the lock with it.
    let third;
    for (let i = 0; i < 100 && !third; i++) {
      third = await lockDatabase(url).catch(() => undefined);
      if (!third) await new Promise((r) => setTimeout(r, 20));
    }
    expect(third).toBeDefined();
    third!.release();
  });
});
