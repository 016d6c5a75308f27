import { createHash } from 'node:crypto';
import { canonicalJson } from '@switchboard/contract';

/** Hash of params with key order ignored, for comparing idempotent replays. */
export function canonicalHash(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value ?? {})).digest('hex');
}
