import { randomBytes } from 'node:crypto';

/**
 * Prefixed ids whose text order follows creation time (base-36 millisecond time first), so ids
 * read well in logs and sort sensibly, with 64 random bits against collisions across processes.
 */
export function newId(prefix: string, now: Date = new Date()): string {
  return `${prefix}_${now.getTime().toString(36).padStart(9, '0')}${randomBytes(8).toString('hex')}`;
}
