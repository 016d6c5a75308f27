import { RpcError } from '@switchboard/contract';
import type { TokenRecord } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { tokenResult } from '../../records/people';

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
