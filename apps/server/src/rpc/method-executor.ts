/**
 * Runs one JSON-RPC request: method lookup, the scope check, params validation against the
 * contract, the idempotency layer and the audit record for mutating methods, the handler, and (in
 * tests and development) a check of the result against the contract. Transport-agnostic: HTTP
 * and WebSocket both call it.
 */
import { leastRoleFor, MAX_PARAMS_DEPTH, NUL_TEXT_MESSAGE, RpcError, methods, nestsDeeperThan, nulTextPath, type MethodDefinition } from '@switchboard/contract';
import { isDeepStrictEqual } from 'node:util';
import type { z } from 'zod';
import { withIdempotency } from './idempotency';
import { AuditTrail, actorOf, channelOf, type AuditFact } from '../audit/audit-trail';
import { retryableStoreError } from './store-busy';
import type { ExtraMethod, HandlerContext, HandlerRegistry } from './handler';
import { INTERNAL_MESSAGE, type RpcRequest } from './envelope';
import { SerializedResult } from './serialized-result';
import type { RpcCallObserver } from '../observability/metrics';
import { endRpcSpan, inRpcSpan, isTraced, startRpcSpan } from '../observability/rpc-span';
import { tracingEnabled } from '../observability/tracing';

export interface ExecuteOutcome {
  result?: unknown;
  error?: RpcError;
}

interface Callable {
  definition: MethodDefinition;
  handler: (params: unknown, ctx: HandlerContext) => Promise<unknown>;
}

/** Zod issues as `[{path, message}]`; an unknown member gets its own issue whose path names it. */
export function issuesOf(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.flatMap((i) => {
    const at = i.path.map(String);
    if (i.code === 'unrecognized_keys') {
      return i.keys.map((key) => ({ path: [...at, key].join('.'), message: `unknown member "${key}"` }));
    }
    return [{ path: at.join('.'), message: i.message }];
  });
}


export class MethodExecutor {
  private readonly callables = new Map<string, Callable>();
  private inFlight = 0;

  /**
   * `handlers` implement contract methods; `extraMethods` bring their own definition and must not
   * shadow a contract method (the published contract stays the single source of truth).
   */
  constructor(
    handlers: HandlerRegistry,
    extraMethods: readonly ExtraMethod[] = [],
    private readonly observer?: RpcCallObserver,
    /** Whether every result is checked against its contract schema (tests and development). */
    private readonly checkResults = false,
  ) {
    for (const [name, handler] of Object.entries(handlers)) {
      const definition = (methods as Record<string, MethodDefinition>)[name];
      if (!definition) throw new Error(`handler registered for ${name}, which is not a contract method`);
      if (handler) this.callables.set(name, { definition, handler: handler as Callable['handler'] });
    }
    for (const extra of extraMethods) {
      const name = extra.definition.name;
      if (Object.prototype.hasOwnProperty.call(methods, name)) throw new Error(`extra method ${name} would shadow the contract method of that name`);
      if (this.callables.has(name)) throw new Error(`extra method ${name} is registered twice`);
      this.callables.set(name, { definition: extra.definition, handler: extra.handler as Callable['handler'] });
    }
  }

  has(method: string): boolean {
    return this.callables.has(method);
  }

  /** Calls started and not yet answered, over every transport. */
  get callsInFlight(): number {
    return this.inFlight;
  }

  async execute(request: RpcRequest, ctx: HandlerContext): Promise<ExecuteOutcome> {
    this.inFlight++;
    try {
      if (!this.observer) return await this.traced(request, ctx);
      const started = performance.now();
      const outcome = await this.traced(request, ctx);
      // An unknown name is one label value, whatever callers send.
      const method = this.callables.has(request.method) ? request.method : 'unknown';
      this.observer.onCall(method, ctx.transport, outcome.error ? outcome.error.code : 'ok', (performance.now() - started) / 1000);
      return outcome;
    } finally {
      this.inFlight--;
    }
  }

  private async traced(request: RpcRequest, ctx: HandlerContext): Promise<ExecuteOutcome> {
    // Tracing off (no SDK started), the call makes no span at all, not even the API's no-op one.
    if (!tracingEnabled()) return this.answer(request, ctx);
    const span = startRpcSpan(this.callables.has(request.method) ? request.method : undefined, ctx.transport, ctx.correlationId);
    if (!isTraced(span)) return this.answer(request, ctx);
    const outcome = await inRpcSpan(span, () => this.answer(request, ctx));
    endRpcSpan(span, outcome.error);
    return outcome;
  }

  private async answer(request: RpcRequest, ctx: HandlerContext): Promise<ExecuteOutcome> {
    try {
      return { result: await this.run(request, ctx) };
    } catch (err) {
      if (err instanceof RpcError) return { error: err };
      const passing = retryableStoreError(ctx.store, err);
      if (passing) {
        ctx.logger.warn(passing.code === 'STORE_BUSY' ? 'store busy' : 'store unavailable', {
          correlation_id: ctx.correlationId,
          method: request.method.slice(0, 100),
          error: err instanceof Error ? err.message : String(err),
        });
        return { error: passing };
      }
      ctx.logger.error('handler fault', {
        correlation_id: ctx.correlationId,
        method: request.method.slice(0, 100),
        error: err instanceof Error ? err.message : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
      return { error: new RpcError('INTERNAL', INTERNAL_MESSAGE) };
    }
  }

  private async run(request: RpcRequest, ctx: HandlerContext): Promise<unknown> {
    const name = request.method;
    const callable = this.callables.get(name);
    if (!callable) {
      throw new RpcError('METHOD_NOT_FOUND', `Method not found: ${name.slice(0, 100)}`, { method: name.slice(0, 100) });
    }
    const { definition: def } = callable;
    // Before validation and idempotency: a refused call leaves no trace but its audit record.
    if (!ctx.principal.scopes.has(def.scope)) {
      const refused = new RpcError('FORBIDDEN', `Forbidden: ${name} needs the ${def.scope} scope (role ${leastRoleFor(def.scope)} or above); this ${ctx.principal.role}'s token does not have it`, {
        method: name,
        required_scope: def.scope,
        role: ctx.principal.role,
        needs_role: leastRoleFor(def.scope),
      });
      await this.recordAfter(ctx, { ...this.factOf(ctx, name, request.params), outcome: refused.code });
      throw refused;
    }
    if (!def.mutating) return this.validateAndRun(request, ctx, callable);
    return this.runAudited(request, ctx, callable);
  }

  /** Audit records in the transaction context of this call's store and server. */
  private trailOf(ctx: HandlerContext): AuditTrail {
    return new AuditTrail(ctx.store, () => ctx.runtime.serverId);
  }

  private factOf(ctx: HandlerContext, method: string, params: unknown): Omit<AuditFact, 'outcome'> {
    return { actor: actorOf(ctx.principal), channel: channelOf(ctx.principal), method, params, correlationId: ctx.correlationId };
  }

  /** A record in its own transaction, after the call: its failure is logged, never the call's answer. */
  private recordAfter(ctx: HandlerContext, fact: AuditFact): Promise<void> {
    return this.trailOf(ctx).recordQuietly(fact, (error) =>
      ctx.logger.error('audit record not written', {
        correlation_id: ctx.correlationId,
        method: fact.method,
        outcome: fact.outcome,
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  }

  /**
   * A mutating call: its record commits with its effect (the MutationCall's hook); a call whose
   * hook did not run (a dry run, a replay, a refusal or an error) is recorded afterwards, with its
   * outcome.
   */
  private async runAudited(request: RpcRequest, ctx: HandlerContext, callable: Callable): Promise<unknown> {
    const name = request.method;
    const fact = this.factOf(ctx, name, request.params);
    const trail = this.trailOf(ctx);
    let recordedWithEffect = false;
    try {
      const result = await this.validateAndRun(request, ctx, callable, async (trx, answer) => {
        await trail.record({ ...fact, result: answer, outcome: 'ok' }, trx);
        recordedWithEffect = true;
      });
      if (!recordedWithEffect) await this.recordAfter(ctx, { ...fact, result, outcome: 'ok' });
      return result;
    } catch (err) {
      // A store that could not take the call (busy, unreachable) would not take its record either:
      // trying would only hold the answer for another timeout. The call had no effect; its retry
      // is recorded.
      if (retryableStoreError(ctx.store, err)) throw err;
      // Also when the hook ran: its record rolled back with the effect, or the call failed after.
      await this.recordAfter(ctx, { ...fact, outcome: err instanceof RpcError ? err.code : 'INTERNAL' });
      throw err;
    }
  }

  private async validateAndRun(request: RpcRequest, ctx: HandlerContext, { definition: def, handler }: Callable, withEffect?: Parameters<typeof withIdempotency>[4]): Promise<unknown> {
    const name = request.method;
    if (def.websocketOnly && ctx.transport !== 'ws') {
      throw new RpcError('INVALID_REQUEST', `${name} is only available on the WebSocket endpoint /v1/ws`, { method: name, transport: ctx.transport });
    }
    if (Array.isArray(request.params)) {
      throw new RpcError('INVALID_PARAMS', 'params must be an object (by-name); positional params are not supported', {
        issues: [{ path: '', message: 'expected an object (params by name), received an array' }],
      });
    }
    if (nestsDeeperThan(request.params, MAX_PARAMS_DEPTH)) {
      throw new RpcError('INVALID_PARAMS', `params nest deeper than ${MAX_PARAMS_DEPTH} levels`, {
        max_depth: MAX_PARAMS_DEPTH,
        issues: [{ path: '', message: `nests deeper than ${MAX_PARAMS_DEPTH} levels (objects and arrays)` }],
      });
    }
    const parsed = def.params.safeParse(request.params ?? {});
    if (!parsed.success) {
      throw new RpcError('INVALID_PARAMS', `Invalid params for ${name}`, { issues: issuesOf(parsed.error) });
    }
    const nulAt = nulTextPath(def.params, request.params ?? {});
    if (nulAt !== undefined) {
      throw new RpcError('INVALID_PARAMS', `Invalid params for ${name}`, { issues: [{ path: nulAt, message: NUL_TEXT_MESSAGE }] });
    }
    const params = parsed.data as Record<string, unknown>;
    if (!withEffect) return this.invoke(def, handler, params, ctx);
    const key = typeof params.idempotency_key === 'string' ? params.idempotency_key : undefined;
    return withIdempotency(ctx.store.idempotency, { method: name, tokenId: ctx.principal.tokenId, key, serverId: ctx.runtime.serverId }, request.params, def.result, withEffect, (mutation) => this.invoke(def, handler, params, mutation ? { ...ctx, mutation } : ctx), ctx.config.killAfterEffect);
  }

  private async invoke(def: MethodDefinition, handler: Callable['handler'], params: Record<string, unknown>, ctx: HandlerContext): Promise<unknown> {
    const result = await handler(params, ctx);
    return this.checkResults ? checkedResult(def, result, ctx) : result;
  }
}

/**
 * Tests and development (SWITCHBOARD_CHECK_RESULTS=on): the result must match its contract schema
 * exactly as sent, with no member the schema would strip, add or change; a mismatch is INTERNAL
 * so that a test fails on it. In production the handler's result goes out as it is.
 */
function checkedResult(def: MethodDefinition, answer: unknown, ctx: HandlerContext): unknown {
  const result = answer instanceof SerializedResult ? answer.value() : answer;
  const checked = def.result.safeParse(result);
  const issues = checked.success
    ? isDeepStrictEqual(asSent(result), asSent(checked.data))
      ? undefined
      : [{ path: '', message: 'the result differs from what its schema makes of it (a member outside the contract, or one the schema fills in)' }]
    : issuesOf(checked.error);
  if (!issues) return answer;
  ctx.logger.error('result does not match the contract', { correlation_id: ctx.correlationId, method: def.name, issues });
  throw new RpcError('INTERNAL', INTERNAL_MESSAGE);
}

/** A value as a client receives it: what JSON keeps of it. */
function asSent(value: unknown): unknown {
  return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
}
