/** People who save views, for the view.* tests: each with a token of their own. */
import type { ParamsInput, Role } from '@switchboard/contract';
import { ok } from '../control-helpers';
import type { TestServer } from '../harness';

export interface ViewPerson {
  userId: string;
  name: string;
  /** Calls as this person. */
  as: Pick<TestServer, 'rpc' | 'rpcUnchecked'>;
}

let people = 0;

/** A new person with `role` (named uniquely, so lists across tests stay apart) and a caller acting as them. */
export async function viewPerson(server: TestServer, role: Role): Promise<ViewPerson> {
  const name = `${role} ${process.pid}-${++people}`;
  const { user } = await ok(server, 'user.create', { display_name: name, role });
  const { secret } = await ok(server, 'token.create', { user_id: user.id, name: `${name} token` });
  return {
    userId: user.id,
    name,
    as: {
      rpc: (method, params, init) => server.rpc(method, params, { ...init, token: secret }),
      rpcUnchecked: (method, params, init) => server.rpcUnchecked(method, params, { ...init, token: secret }),
    },
  };
}

/** A view saved by `person` on the incidents list (the default), private unless `shared`. */
export async function savedBy(person: ViewPerson, name: string, extra: Partial<ParamsInput<'view.create'>> = {}) {
  const { view } = await ok(person.as, 'view.create', { list: 'incidents', name, filters: { state: 'open', window: '24' }, ...extra });
  return view;
}
