import { RpcError } from '@switchboard/contract';
import { LastAdminError, type UserRecord } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { userResult } from './records';

export const userList: Handler<'user.list'> = async (params, ctx) => {
  const users = await ctx.store.users.list({ includeDisabled: params.include_disabled ?? true });
  return { items: users.map(userResult) };
};

export const userCreate: Handler<'user.create'> = async (params, ctx) => {
  const answer = ctx.mutation?.answerWith((u: UserRecord) => ({ user: userResult(u) }));
  const user = await ctx.store.transaction(async (tx) => {
    const created = await ctx.store.users.create({ display_name: params.display_name, email: params.email, role: params.role }, tx);
    await answer?.(tx, created);
    return created;
  });
  return { user: userResult(user) };
};

export const userUpdate: Handler<'user.update'> = async (params, ctx) => {
  const answer = ctx.mutation?.answerWith((u: UserRecord) => ({ user: userResult(u) }));
  let user: UserRecord | undefined;
  try {
    user = await ctx.store.transaction(async (tx) => {
      const updated = await ctx.store.users.update(
        params.user_id,
        { role: params.role, disabled: params.disabled, display_name: params.display_name, email: params.email },
        tx,
      );
      if (updated) await answer?.(tx, updated);
      return updated;
    });
  } catch (err) {
    if (err instanceof LastAdminError) {
      throw new RpcError('INVALID_PARAMS', `Invalid params for user.update: ${err.message}`, {
        issues: [{ path: params.role !== undefined ? 'role' : 'disabled', message: err.message }],
      });
    }
    throw err;
  } finally {
    // Tokens verified while the transaction ran may carry the old role.
    ctx.store.tokens.forgetVerified();
  }
  if (!user) throw new RpcError('NOT_FOUND', `No user with id ${params.user_id}`, { user_id: params.user_id });
  return { user: userResult(user) };
};
