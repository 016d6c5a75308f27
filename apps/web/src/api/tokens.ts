/**
 * Who a token acts for, for actor labels. Records carry the acting token's id (some also its
 * name, the audit trail also its person); the rest is the signed-in session's own, or read once
 * through runtime.lookup and kept for the session.
 */
import { useQuery } from '@tanstack/react-query';
import { rpc } from './client';
import { rpcKeys } from './query-client';
import { useSession } from './session';

export interface TokenOwner {
  tokenName?: string;
  userId?: string;
  userName?: string;
  role?: string;
}

/** What is known of the token with this id: given by the record, the signed-in token's, or looked up. */
export function useTokenOwner(id: string | undefined, given: TokenOwner): TokenOwner {
  const session = useSession();
  const own: TokenOwner | undefined =
    id && session.data?.token.id === id
      ? { tokenName: session.data.token.name, userId: session.data.user.id, userName: session.data.user.display_name, role: session.data.user.role }
      : undefined;
  const known = given.userName !== undefined || own !== undefined;
  const lookup = useQuery({
    queryKey: rpcKeys.query('runtime.lookup', { id }, 'token-owner'),
    queryFn: async ({ signal }): Promise<TokenOwner | null> => {
      const hit = await rpc('runtime.lookup', { id: id! }, signal);
      return hit.kind === 'token' ? { tokenName: hit.name, userId: hit.user_id, userName: hit.user_name, role: hit.role } : null;
    },
    enabled: Boolean(id) && id !== 'runtime' && !known,
    staleTime: Infinity,
    retry: false,
  });
  return { ...own, ...lookup.data, ...definedOnly(given) };
}

function definedOnly(o: TokenOwner): TokenOwner {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined));
}
