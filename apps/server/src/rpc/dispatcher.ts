/**
 * Runs one JSON-RPC request: method lookup, params validation against the contract, the
 * idempotency layer for mutating methods, the handler, and result validation. Transport-agnostic:
 * HTTP and WebSocket both call it.
 */
import { RpcError, isMethodName, methods, type MethodName } from '@switchboard/contract';
import type { z } from 'zod';
import { withIdempotency } from './idempotency';
import type { Handler, HandlerContext, HandlerRegistry } from './handler';
import type { RpcRequest } from './envelope';

export interface ExecuteOutcome {
  result?: unknown;
  error?: RpcError;
}

export function issuesOf(error: z.ZodError): { path: string; message: string }[] {
  return error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
}

export class Dispatcher {
  constructor(private readonly handlers: HandlerRegistry) {}

  has(method: string): boolean {
    return isMethodName(method) && this.handlers[method] !== undefined;
  }

  async execute(request: RpcRequest, ctx: HandlerContext): Promise<ExecuteOutcome> {
    try {
      return { result: await this.run(request, ctx) };
    } catch (err) {
      if (err instanceof RpcError) return { error: err };
      ctx.logger.error('handler fault', {
        correlation_id: ctx.correlationId,
        method: request.method,
        error: err instanceof Error ? err.message : String(err),
        stack: err instanceof Error ? err.stack : undefined,
      });
      return { error: new RpcError('INTERNAL', 'Internal error; quote the correlation id when reporting it', {}) };
    }
  }

  private async run(request: RpcRequest, ctx: HandlerContext): Promise<unknown> {
    const name = request.method;
    if (!isMethodName(name) || !this.handlers[name]) {
      throw new RpcError('METHOD_NOT_FOUND', `Method not found: ${name.slice(0, 100)}`, { method: name.slice(0, 100) });
    }
    const def = methods[name];
    if (def.websocketOnly && ctx.transport !== 'ws') {
      throw new RpcError('INVALID_REQUEST', `${name} is only available on the WebSocket endpoint /v1/ws`, { method: name });
    }
    if (Array.isArray(request.params)) {
      throw new RpcError('INVALID_PARAMS', 'params must be an object (by-name); positional params are not supported', {
        issues: [{ path: '', message: 'expected an object, received an array' }],
      });
    }
    const parsed = def.params.safeParse(request.params ?? {});
    if (!parsed.success) {
      throw new RpcError('INVALID_PARAMS', `Invalid params for ${name}`, { issues: issuesOf(parsed.error) });
    }
    const handler = this.handlers[name] as Handler<MethodName>;
    const params = parsed.data as Record<string, unknown>;
    const invoke = async () => {
      const result = await handler(params as never, ctx);
      const checked = def.result.safeParse(result);
      if (!checked.success) {
        ctx.logger.error('result does not match the contract', {
          correlation_id: ctx.correlationId,
          method: name,
          issues: issuesOf(checked.error),
        });
        throw new RpcError('INTERNAL', 'Internal error; quote the correlation id when reporting it');
      }
      return checked.data;
    };
    if (!def.mutating) return invoke();
    return withIdempotency(
      ctx.store.idempotency,
      { method: name, tokenId: ctx.principal.tokenId, key: params.idempotency_key as string | undefined },
      request.params,
      invoke,
    );
  }
}
