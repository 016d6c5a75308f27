/**
 * Test-only JSON-RPC methods. They carry their own definitions (never part of the published
 * contract) and go through the same dispatcher, validation and idempotency layer as real methods.
 */
import { z } from 'zod';
import { databaseOf, sql } from '@switchboard/store/testing';
import { RpcError, defineMethod, idempotencyKey } from '@switchboard/contract';
import { extraMethod, type ExtraMethod } from '../src/rpc/handler';

export const echoDefinition = defineMethod({
  name: 'test.echo',
  summary: 'Returns its params (test only).',
  params: z.strictObject({ text: z.string(), n: z.number().optional() }),
  result: z.object({ text: z.string(), n: z.number().optional() }),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const plainFaultDefinition = defineMethod({
  name: 'test.plain_fault',
  summary: 'Throws a plain Error (test only).',
  params: z.strictObject({}),
  result: z.object({}),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const sqlFaultDefinition = defineMethod({
  name: 'test.sql_fault',
  summary: 'Runs a query against a table that does not exist (test only).',
  params: z.strictObject({}),
  result: z.object({}),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const badResultDefinition = defineMethod({
  name: 'test.bad_result',
  summary: 'Returns a result that breaks its own schema (test only).',
  params: z.strictObject({}),
  result: z.object({ ok: z.boolean() }),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const extraMemberDefinition = defineMethod({
  name: 'test.extra_member',
  summary: 'Returns its result with a member outside its schema (test only).',
  params: z.strictObject({}),
  result: z.object({ ok: z.boolean() }),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const recordDefinition = defineMethod({
  name: 'test.record',
  summary: 'A mutating method that counts its executions (test only).',
  params: z.strictObject({
    value: z.unknown(),
    /** Wait until the test calls release() before answering. */
    hold: z.boolean().optional(),
    /** Fail with a stored (non-retryable) or an unstored (retryable INTERNAL) error. */
    fail: z.enum(['not_found', 'internal']).optional(),
    idempotency_key: idempotencyKey,
  }),
  result: z.object({ execution: z.number().int(), value: z.unknown(), idempotency_replayed: z.boolean() }),
  errors: ['NOT_FOUND', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  scope: 'events:publish',
  mutating: true,
});

export const SECRET_FAULT_TEXT = 'kaboom: internal detail /srv/secret/path.ts';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

export interface TestMethods {
  methods: ExtraMethod[];
  /** How many times test.record's handler actually ran. */
  executions(): number;
  /** Lets every held test.record call finish. */
  release(): void;
  /** Resolves once a held call has started. */
  started(): Promise<void>;
}

export function createTestMethods(): TestMethods {
  let executions = 0;
  let gate = deferred();
  let startedSignal = deferred();
  const methods: ExtraMethod[] = [
    extraMethod(echoDefinition, async (params) => params),
    extraMethod(plainFaultDefinition, async () => {
      throw new Error(SECRET_FAULT_TEXT);
    }),
    extraMethod(sqlFaultDefinition, async (_params, ctx) => {
      await sql`select secret_column from no_such_table_xyz`.execute(databaseOf(ctx.store));
      return {};
    }),
    extraMethod(badResultDefinition, async () => ({ ok: 'not a boolean' }) as never),
    extraMethod(extraMemberDefinition, async () => ({ ok: true, internal_column: 'x' }) as never),
    extraMethod(recordDefinition, async (params) => {
      executions += 1;
      const execution = executions;
      if (params.hold) {
        startedSignal.resolve();
        await gate.promise;
      }
      if (params.fail === 'not_found') throw new RpcError('NOT_FOUND', 'No such thing', { resource: 'thing', id: String(execution) });
      if (params.fail === 'internal') throw new Error('transient fault');
      return { execution, value: params.value, idempotency_replayed: false };
    }),
  ];
  return {
    methods,
    executions: () => executions,
    release() {
      gate.resolve();
      gate = deferred();
    },
    started: () => startedSignal.promise.then(() => {
      startedSignal = deferred();
    }),
  };
}
