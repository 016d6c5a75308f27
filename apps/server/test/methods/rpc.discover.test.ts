/**
 * The published API description and interoperability: rpc.discover and GET /v1/openrpc.json
 * validate against the OpenRPC meta-schema and list every contract method with its schemas; an
 * off-the-shelf JSON-RPC 2.0 client from npm can call the server.
 */
import Ajv from 'ajv';
import metaSchemaModule from '@open-rpc/meta-schema';
import draft07MetaSchema from 'ajv/dist/refs/json-schema-draft-07.json';
import { JSONRPCClient, JSONRPCErrorException } from 'json-rpc-2.0';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ROLES, SCOPES, methodNames, methods, roleScopes, type OpenRpcDocument } from '@switchboard/contract';
import { startTestServer, type TestServer } from '../harness';
import { rawGet } from '../rpc-helpers';
import { createTestMethods } from '../test-methods';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ extraMethods: createTestMethods().methods });
});
afterAll(async () => {
  await server?.close();
});

const openRpcMetaSchema = ((metaSchemaModule as { default?: unknown }).default ?? metaSchemaModule) as Record<string, unknown>;

function newAjv() {
  // The meta-schema and the embedded method schemas are draft-07; unknown annotation keywords are allowed.
  return new Ajv({ strict: false, allErrors: true, validateFormats: false });
}

/**
 * The OpenRPC meta-schema takes its JSON Schema definition by reference from
 * https://meta.json-schema.tools (the draft-07 meta-schema with titles, not shipped with it). The
 * draft-07 meta-schema from ajv stands in for it under that id; the one deeper reference it makes
 * (the type of `$ref`) is a uri-reference string.
 */
function jsonSchemaToolsStandIn(id: string): Record<string, unknown> {
  const definitions = (draft07MetaSchema as { definitions: Record<string, unknown> }).definitions;
  return {
    ...draft07MetaSchema,
    $id: id,
    definitions: { ...definitions, JSONSchemaObject: { type: 'object', properties: { $ref: { type: 'string', format: 'uri-reference' } } } },
  };
}

let openRpcValidator: ReturnType<Ajv['compile']> | undefined;
function validateOpenRpc(doc: unknown) {
  if (!openRpcValidator) {
    const { $schema: _ignored, ...schema } = openRpcMetaSchema;
    const ajv = newAjv();
    // Referenced both with and without the trailing slash, which resolve to different ids.
    ajv.addSchema(jsonSchemaToolsStandIn('https://meta.json-schema.tools'));
    ajv.addSchema(jsonSchemaToolsStandIn('https://meta.json-schema.tools/'));
    openRpcValidator = ajv.compile(schema);
  }
  const ok = openRpcValidator(doc);
  return { ok, errors: openRpcValidator.errors };
}

async function discover(): Promise<OpenRpcDocument> {
  const res = await server.rpc('rpc.discover', {});
  expect(res.error).toBeUndefined();
  // The contract publishes the document as a JSON object; its shape is the builder's.
  return res.result as OpenRpcDocument;
}

describe('OpenRPC document', () => {
  test('rpc.discover validates against the OpenRPC meta-schema', async () => {
    const doc = await discover();
    const { ok, errors } = validateOpenRpc(doc);
    expect(errors ?? []).toEqual([]);
    expect(ok).toBe(true);
  });

  test('the meta-schema check does reject broken documents', async () => {
    const doc = await discover();
    expect(validateOpenRpc({ ...doc, openrpc: '9.9.9' }).ok).toBe(false);
    expect(validateOpenRpc({ ...doc, methods: [{ ...doc.methods[0], params: 'none' }] }).ok).toBe(false);
    expect(validateOpenRpc({ ...doc, methods: [{ ...doc.methods[0], result: { schema: {} } }] }).ok).toBe(false);
  });

  test('GET /v1/openrpc.json is the same document', async () => {
    const res = await rawGet(server, '/v1/openrpc.json', { authorization: `Bearer ${server.token}` });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(validateOpenRpc(res.json).ok).toBe(true);
    expect(res.json).toEqual(await discover());
  });

  test('lists every contract method, and no test-only one, with params and result schemas that compile', async () => {
    const doc = await discover();
    const listed = doc.methods.map((m) => m.name).sort();
    expect(listed).toEqual([...methodNames].sort());
    expect(listed).not.toContain('test.echo');
    const ajv = newAjv();
    for (const method of doc.methods) {
      expect(method.paramStructure).toBe('by-name');
      expect(Array.isArray(method.params)).toBe(true);
      for (const param of method.params) {
        expect(typeof param.name).toBe('string');
        expect(typeof param.required).toBe('boolean');
        expect(() => ajv.compile(param.schema)).not.toThrow();
      }
      expect(method.result.schema).toBeTypeOf('object');
      expect(() => ajv.compile(method.result.schema)).not.toThrow();
      const codes = method.errors.map((e) => e.data.code);
      expect(codes).toEqual(expect.arrayContaining(['INVALID_PARAMS', 'UNAUTHENTICATED', 'INTERNAL']));
      for (const code of methods[method.name as keyof typeof methods].errors) expect(codes).toContain(code);
    }
  });

  test('every method carries its scope (x-scope) and the roles that hold it (x-roles), here and in /v1/openrpc.json', async () => {
    const doc = await discover();
    const file = (await rawGet(server, '/v1/openrpc.json', { authorization: `Bearer ${server.token}` })).json;
    for (const published of [doc, file]) {
      for (const method of published.methods) {
        const def = methods[method.name as keyof typeof methods];
        expect(SCOPES).toContain(method['x-scope']);
        expect({ method: method.name, scope: method['x-scope'] }).toEqual({ method: method.name, scope: def.scope });
        expect({ method: method.name, roles: method['x-roles'] }).toEqual({ method: method.name, roles: ROLES.filter((r) => roleScopes[r].includes(def.scope)) });
        expect(method['x-roles']).toContain('admin');
      }
    }
    // The extensions are what makes the document valid: unprefixed members are not allowed on a method.
    const unprefixed = { ...doc, methods: doc.methods.map(({ 'x-scope': scope, ...m }) => ({ ...m, scope })) };
    expect(validateOpenRpc(unprefixed).ok).toBe(false);
  });

  test('param lists match the contract: names and requiredness', async () => {
    const doc = await discover();
    const echoOf = (name: string) => doc.methods.find((m) => m.name === name)!;
    expect(echoOf('health.ping').params).toEqual([]);
    expect(echoOf('health.unsubscribe').params).toEqual([expect.objectContaining({ name: 'subscription_id', required: true })]);
    const reject = echoOf('mailbox.reject');
    expect(reject.params.map((p) => p.name)).toEqual(expect.arrayContaining(['mailbox_id', 'reason', 'idempotency_key']));
    expect(reject.params.find((p) => p.name === 'idempotency_key')!.required).toBe(false);
  });

  test('the published result schema accepts what the server really returns', async () => {
    const doc = await discover();
    const ajv = newAjv();
    for (const name of ['health.ping', 'health.check'] as const) {
      const validate = ajv.compile(doc.methods.find((m) => m.name === name)!.result.schema);
      const live = await server.rpc(name, {});
      expect(validate(live.result), JSON.stringify(validate.errors)).toBe(true);
    }
  });

  test('run.start is marked deprecated; event.publish is not', async () => {
    const doc = await discover();
    expect(doc.methods.find((m) => m.name === 'run.start')!.deprecated).toBe(true);
    expect(doc.methods.find((m) => m.name === 'event.publish')!.deprecated).toBeUndefined();
  });

  test('websocket-only methods are tagged', async () => {
    const doc = await discover();
    for (const name of ['health.subscribe', 'health.unsubscribe']) {
      expect(doc.methods.find((m) => m.name === name)!.tags).toEqual([{ name: 'websocket-only' }]);
    }
  });
});

describe('a third-party JSON-RPC 2.0 client (json-rpc-2.0 from npm)', () => {
  const makeClient = () =>
    new JSONRPCClient(async (request) => {
      const res = await fetch(server.url + '/v1/rpc', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${server.token}` },
        body: JSON.stringify(request),
      });
      if (res.status === 200) client.receive(await res.json());
      else if (request.id !== undefined) throw new Error(`HTTP ${res.status}`);
    });
  let client: JSONRPCClient;

  test('calls health.ping and health.check', async () => {
    client = makeClient();
    const ping = await client.request('health.ping', {});
    expect(ping).toEqual({ ok: true, ts: expect.any(String) });
    const check = await client.request('health.check', {});
    expect(methods['health.check'].result.safeParse(check).success).toBe(true);
  });

  test('sees errors as JSON-RPC errors carrying data.code', async () => {
    client = makeClient();
    const failure = await Promise.resolve(client.request('no.such.method', {})).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(JSONRPCErrorException);
    expect((failure as JSONRPCErrorException).code).toBe(-32601);
    expect((failure as JSONRPCErrorException).data).toMatchObject({ code: 'METHOD_NOT_FOUND', retryable: false });
  });

  test('sends notifications, which the server runs and answers with 204', async () => {
    client = makeClient();
    const before = server.logs.length;
    client.notify('health.ping', {});
    await expect
      .poll(() => server.logs.slice(before).find((l) => l.msg === 'request' && l.method === 'health.ping' && l.status === 204), { timeout: 3000, interval: 10 })
      .toMatchObject({ outcome: 'ok' });
  });
});
