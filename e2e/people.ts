/** People of a test's own, created over the API by the admin token the shared server starts with. */
import type { Role } from '@switchboard/contract/roles';
import type { SharedServer } from './fixtures';

export interface Person {
  userId: string;
  name: string;
  role: Role;
  tokenId: string;
  /** The token's secret, to paste on the sign-in screen. */
  secret: string;
}

const key = () => `e2e-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;

/** A new person with the role and a token of theirs (the secret comes only with the creation). */
export async function personWithToken(server: SharedServer, role: Role, tag: string): Promise<Person> {
  const name = `E2E ${role} ${tag} ${Math.random().toString(36).slice(2, 6)}`;
  const { user } = await server.rpc('user.create', { display_name: name, role, idempotency_key: key() });
  const created = await server.rpc('token.create', { user_id: user.id, name: `${tag}-token`, idempotency_key: key() });
  if (!created.secret) throw new Error('token.create returned no secret');
  return { userId: user.id, name, role, tokenId: created.token.id, secret: created.secret };
}

export async function setRole(server: SharedServer, person: Person, role: Role): Promise<void> {
  await server.rpc('user.update', { user_id: person.userId, role, idempotency_key: key() });
}
