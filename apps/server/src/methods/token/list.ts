import type { Handler } from '../../rpc/handler';
import { tokenResult } from '../../records/people';

export const tokenList: Handler<'token.list'> = async (params, ctx) => {
  const tokens = await ctx.store.tokens.list({ userId: params.user_id, includeRevoked: params.include_revoked ?? true });
  return { items: tokens.map(tokenResult) };
};
