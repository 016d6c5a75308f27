import type { UserRecord } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { userResult } from '../../records/people';

export const userCreate: Handler<'user.create'> = async (params, ctx) => {
  const answer = ctx.mutation?.answerWith((u: UserRecord) => ({ user: userResult(u) }));
  const user = await ctx.store.transaction(async (tx) => {
    const created = await ctx.store.users.create({ display_name: params.display_name, email: params.email, role: params.role }, tx);
    await answer?.(tx, created);
    return created;
  });
  return { user: userResult(user) };
};
