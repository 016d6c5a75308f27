/**
 * Token names for actor labels. Audit records carry the acting token's id (some also its name);
 * the name of any other token is read once through runtime.lookup and kept for the session.
 */
import { useQuery } from '@tanstack/react-query';
import { rpc } from './client';
import { rpcKeys } from './query-client';
import { useSession } from './session';

/** The name of the token with this id, when known: given, the signed-in token's, or looked up. */
export function useTokenName(id: string | undefined, given?: string): string | undefined {
  const session = useSession();
  const own = session.data?.token.id === id ? session.data?.token.name : undefined;
  const known = given ?? own;
  const lookup = useQuery({
    queryKey: rpcKeys.query('runtime.lookup', { id }, 'token-name'),
    queryFn: async ({ signal }) => {
      const hit = await rpc('runtime.lookup', { id: id! }, signal);
      return hit.kind === 'token' ? (hit.name ?? null) : null;
    },
    enabled: Boolean(id) && id !== 'runtime' && known === undefined,
    staleTime: Infinity,
    retry: false,
  });
  return known ?? lookup.data ?? undefined;
}
