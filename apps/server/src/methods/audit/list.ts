import { DEFAULT_PAGE_LIMIT, type Result } from '@switchboard/contract';
import type { AuditRecordRow } from '@switchboard/store';
import { z } from 'zod';
import { decodeCursor, encodeCursor } from '../../pagination/cursor';
import type { Handler } from '../../rpc/handler';

const position = z.strictObject({ seq: z.number().int().min(1) });

type AuditRecord = Result<'audit.list'>['items'][number];

function recordResult(r: AuditRecordRow): AuditRecord {
  return {
    seq: r.seq,
    at: r.at,
    ...(r.user_id ? { user_id: r.user_id } : {}),
    ...(r.user_name ? { user_name: r.user_name } : {}),
    ...(r.token_id ? { token_id: r.token_id } : {}),
    channel: r.channel as AuditRecord['channel'],
    node_id: r.node_id,
    method: r.method,
    target_ids: r.target_ids,
    params_summary: r.params_summary,
    outcome: r.outcome,
    ...(r.correlation_id ? { correlation_id: r.correlation_id } : {}),
    hash: r.hash,
    prev_hash: r.prev_hash,
  };
}

/** audit.list: newest first; the cursor carries the last seq shown and is bound to the filters. */
export const auditList: Handler<'audit.list'> = async (params, ctx) => {
  const filter = {
    actor: params.actor,
    method: params.method,
    targetId: params.target_id,
    outcome: params.outcome,
    since: params.since,
    until: params.until,
  };
  const binding = Object.fromEntries(Object.entries(filter).map(([k, v]) => [k, v ?? null]));
  const after = params.cursor ? await decodeCursor(ctx.store, 'audit.list', binding, params.cursor, position) : undefined;
  const limit = params.limit ?? DEFAULT_PAGE_LIMIT;
  // One more than the page: whether a next page exists without a count.
  const rows = await ctx.store.audit.list({ ...filter, beforeSeq: after?.seq }, limit + 1);
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(recordResult),
    ...(rows.length > limit && last ? { next_cursor: await encodeCursor(ctx.store, 'audit.list', binding, { seq: last.seq }) } : {}),
  };
};
