/**
 * Names that are Object.prototype members must be treated as the unknown names they are, never
 * resolve to inherited functions (which answered INTERNAL, retryable, before).
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import { CONTROL_BUNDLE } from './control-helpers';
import { startTestServer, type TestServer } from './harness';
import { expectRpcError } from './rpc-helpers';

const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'isPrototypeOf', '__defineGetter__'];
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE } });
});
afterAll(() => server.close());

describe('prototype member names', () => {
  for (const name of PROTOTYPE_NAMES) {
    it(`event.publish and run.start with event_name "${name}" are UNKNOWN_EVENT`, async () => {
      expectRpcError(await server.rpc('event.publish', { event_name: name, payload: {} }), 'UNKNOWN_EVENT');
      expectRpcError(await server.rpc('run.start', { event_name: name, payload: {} }), 'UNKNOWN_EVENT');
    });

    it(`method "${name}" is METHOD_NOT_FOUND, in the body and on the per-method path`, async () => {
      expectRpcError(await server.rpcUnchecked(name, {}), 'METHOD_NOT_FOUND');
      const res = await server.post(`/v1/rpc/${encodeURIComponent(name)}`, { jsonrpc: '2.0', id: 1, method: name });
      expectRpcError(await res.json(), 'METHOD_NOT_FOUND');
    });
  }

  it('a payload must own its required members: an empty payload lacks "n" even if named like a prototype member', async () => {
    const res = await server.rpc('event.publish', { event_name: 'tick', payload: { constructor: 1 } });
    expectRpcError(res, 'INVALID_PARAMS');
  });
});
