import type { Decider } from '@switchboard/runtime';
import type { Principal } from '../rpc/handler';

/** The person behind a call, as the mailbox rules see them. */
export function deciderOf(principal: Principal): Decider {
  return { userId: principal.userId, userName: principal.userName, role: principal.role };
}
