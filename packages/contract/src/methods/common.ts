import { z } from 'zod';

/** Page size for list methods: default 50 (applied by the server), 1..500. */
export const pageLimit = z.number().int().min(1).max(500).optional().describe('page size, default 50, maximum 500');
export const pageCursor = z.string().min(1).optional().describe('opaque cursor from next_cursor; omit for the first page');
export const nextCursor = z.string().optional().describe('present when more pages exist');
export const idempotencyKey = z
  .string()
  .min(1)
  .max(200)
  .optional()
  .describe('optional; replaying the same key with the same body returns the stored response for 24 hours');
export const emptyParams = z.strictObject({});
export const DEFAULT_PAGE_LIMIT = 50;
