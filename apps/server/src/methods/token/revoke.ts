import { RpcError } from '@switchboard/contract';
import type { TokenRecord } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { tokenResult } from '../../records/people';

export const tokenRevoke: Handler<'token.revoke'> = async (params, ctx) => {
  const answer = ctx.mutation?.answerWith((r: { token: TokenRecord; revoked: boolean }) => ({ token: tokenResult(r.token), already_revoked: !r.revoked }));
  const outcome = await ctx.store.transaction(async (tx) => {
    const known = await ctx.store.tokens.findById(params.token_id, tx);
    if (!known) return undefined;
    const revoked = await ctx.store.tokens.revoke(known.id, tx);
    const after = (await ctx.store.tokens.findById(known.id, tx)) ?? known;
    await answer?.(tx, { token: after, revoked });
    return { token: after, revoked };
  });
  if (!outcome) throw new RpcError('NOT_FOUND', `No token with id ${params.token_id}`, { token_id: params.token_id });
  return { token: tokenResult(outcome.token), already_revoked: !outcome.revoked };
};
