import { z } from 'zod';
import { MAX_PAYLOAD_CONDITIONS, MAX_PAYLOAD_IN_VALUES, MAX_PAYLOAD_VALUE_LENGTH, PAYLOAD_CONDITION_OPS, payloadPathProblem } from '../payload-search';

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

const payloadScalar = z.union([
  z.string().max(MAX_PAYLOAD_VALUE_LENGTH, `a payload value must be at most ${MAX_PAYLOAD_VALUE_LENGTH} characters`),
  z.number().refine(Number.isFinite, 'a payload value must be a finite number'),
  z.boolean(),
]);
const payloadPath = z
  .string()
  .superRefine((path, ctx) => {
    const problem = payloadPathProblem(path);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  })
  .describe('dot-separated identifiers into the payload object, e.g. "ticket_id" or "customer.id"');

/** One condition on a JSON value inside the payload; see docs/payload-search.md. */
export const payloadCondition = z
  .discriminatedUnion('op', [
    z.strictObject({ path: payloadPath, op: z.literal('eq'), value: payloadScalar.describe('equal in value and type: "5" does not match 5') }),
    z.strictObject({
      path: payloadPath,
      op: z.literal('in'),
      value: z.array(payloadScalar).min(1).max(MAX_PAYLOAD_IN_VALUES, `in takes at most ${MAX_PAYLOAD_IN_VALUES} values`),
    }),
    z.strictObject({ path: payloadPath, op: z.literal('prefix'), value: z.string().min(1).max(MAX_PAYLOAD_VALUE_LENGTH).describe('a string value starting with this') }),
    z.strictObject({ path: payloadPath, op: z.literal('exists').describe('the path holds a value other than null') }),
  ], { error: `op must be one of ${PAYLOAD_CONDITION_OPS.join(', ')}` });

export const payloadConditions = z
  .array(payloadCondition)
  .min(1)
  .max(MAX_PAYLOAD_CONDITIONS, `at most ${MAX_PAYLOAD_CONDITIONS} payload conditions`)
  .describe('additive: conditions on the payload, all of which must hold (AND)');

/** How a list with payload conditions searched: whether an index served it and whether the page stopped at the scan bound. */
export const payloadSearchReport = z
  .object({
    indexed: z.boolean().describe('an eq or in condition is on a field the bundle declares indexed'),
    scan_limited: z
      .boolean()
      .describe('an unindexed search looked at a bounded number of events for this page; more may match further on: follow next_cursor'),
    scanned_events: z.number().int().optional().describe('unindexed: how many events this page looked at (the bound when scan_limited)'),
  })
  .describe('additive: present when the filter has payload conditions');
