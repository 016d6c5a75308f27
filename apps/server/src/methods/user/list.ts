import type { Handler } from '../../rpc/handler';
import { userResult } from '../../records/people';

export const userList: Handler<'user.list'> = async (params, ctx) => {
  const users = await ctx.store.users.list({ includeDisabled: params.include_disabled ?? true });
  return { items: users.map(userResult) };
};
