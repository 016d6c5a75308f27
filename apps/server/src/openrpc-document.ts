/**
 * The published API reference. Built once: it derives only from the contract's static method
 * definitions, so every request after the first gets the same object.
 */
import { MAX_PARAMS_DEPTH, buildOpenRpcDocument, methods } from '@switchboard/contract';

let document: Record<string, unknown> | undefined;

export function openRpcDocument(): Record<string, unknown> {
  document ??= buildOpenRpcDocument(methods, {
    title: 'Switchboard Runtime Control API',
    version: '1.0.0',
    description: `JSON-RPC 2.0 control and inspection API of an event-driven agent runtime. Params (payloads included) may nest at most ${MAX_PARAMS_DEPTH} levels of objects and arrays; deeper params are INVALID_PARAMS. Timestamps may carry any UTC offset and are compared as instants. Rate limits (RATE_LIMITED) are counted per token by each server process: with several servers on one PostgreSQL database, a token's budget applies at each server it reaches (N servers admit up to N times the per-server rate). health.check lists the live servers.`,
  });
  return document;
}
