import { randomFillSync } from 'node:crypto';

/** Random bytes drawn from the OS in blocks: one call per 512 ids instead of one per id, since a call per id showed up in profiles (docs/performance-notes.md). */
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function randomHex8(): string {
  if (poolOffset + 8 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const hex = pool.toString('hex', poolOffset, poolOffset + 8);
  poolOffset += 8;
  return hex;
}

/**
 * Prefixed ids whose text order follows creation time (base-36 millisecond time first), so ids
 * read well in logs and sort sensibly, with 64 random bits against collisions across processes.
 */
export function newId(prefix: string, now: Date = new Date()): string {
  return `${prefix}_${now.getTime().toString(36).padStart(9, '0')}${randomHex8()}`;
}
