import { RpcError } from '@switchboard/contract';
import { LastAdminError, type UserRecord } from '@switchboard/store';
import type { Handler } from '../../rpc/handler';
import { userResult } from '../../records/people';

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
