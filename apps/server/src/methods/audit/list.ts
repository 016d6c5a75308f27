import type { Result } from '@switchboard/contract';
import type { AuditRecordRow } from '@switchboard/store';
import { keysetPage } from '../../pagination/keyset-page';
import { auditPosition } from '../../pagination/positions';
import type { Handler } from '../../rpc/handler';

type AuditRecord = Result<'audit.list'>['items'][number];

function recordResult(r: AuditRecordRow): AuditRecord {
  return {
    seq: r.seq,
    at: r.at,
    ...(r.user_id ? { user_id: r.user_id } : {}),
    ...(r.user_name ? { user_name: r.user_name } : {}),
    ...(r.token_id ? { token_id: r.token_id } : {}),
    channel: r.channel as AuditRecord['channel'],
    server_id: r.server_id,
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
  const { page, nextCursor } = await keysetPage(
    ctx.store,
    { method: 'audit.list', binding, position: auditPosition, cursor: params.cursor, limit: params.limit },
    (after, limit) => ctx.store.audit.page(filter, { limit, after }),
  );
  return { items: page.records.map(recordResult), ...nextCursor };
};
