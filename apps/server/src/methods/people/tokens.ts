import { RpcError } from '@switchboard/contract';
import type { TokenRecord } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { tokenResult } from './records';

export const tokenList: Handler<'token.list'> = async (params, ctx) => {
  const tokens = await ctx.store.tokens.list({ userId: params.user_id, includeRevoked: params.include_revoked ?? true });
  return { items: tokens.map(tokenResult) };
};

export const tokenCreate: Handler<'token.create'> = async (params, ctx) => {
  const user = await ctx.store.users.get(params.user_id);
  if (!user) throw new RpcError('NOT_FOUND', `No user with id ${params.user_id}`, { user_id: params.user_id });
  // The stored answer (an idempotent replay's) never holds the secret: it is shown once.
  const answer = ctx.mutation?.answerWith((t: TokenRecord) => ({ token: tokenResult(t) }));
  const { token, secret } = await ctx.store.transaction(async (tx) => {
    const created = await ctx.store.tokens.create(params.name, { userId: user.id, scopes: params.scopes }, tx);
    await answer?.(tx, created.token);
    return created;
  });
  return { token: tokenResult(token), secret };
};

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
