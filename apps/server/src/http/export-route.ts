/**
 * GET /v1/export/<list>?format=jsonl|csv&params=<JSON of the list method's params>: a list taken
 * out whole, streamed. The params are the list method's, checked with its own contract schema
 * (without limit and cursor) and its scope; everything wrong is refused before a byte of the body
 * is sent, with the JSON-RPC error body every other route answers with.
 */
import type { Context } from 'hono';
import { EXPORT_FORMATS, EXPORT_LIST_NAMES, MAX_PARAMS_DEPTH, NUL_TEXT_MESSAGE, RpcError, errorRegistry, leastRoleFor, methods, nestsDeeperThan, nulTextPath, type ExportFormat, type MethodDefinition } from '@switchboard/contract';
import type { Runtime } from '@switchboard/runtime';
import type { Store } from '@switchboard/store';
import type { z } from 'zod';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { errorJson, type AppEnv } from './app-env';
import { actorOf, channelOf, type AuditFact } from '../audit/audit-trail';
import { exportLists, isExportListName, type ExportList } from '../export/export-lists';
import { EXPORT_CONTENT_TYPES, exportStream } from '../export/export-stream';
import { issuesOf } from '../rpc/method-executor';
import { shareCursorSecret } from '../pagination/cursor';
import type { HandlerContext } from '../rpc/handler';

/** The params travel in the URL: longer than any real filter, short enough for every proxy. */
const MAX_PARAMS_TEXT = 4096;

interface ExportDeps {
  config: Config;
  store: Store;
  runtime: Runtime;
  logger: Logger;
  /** Writes an audit record; a failure is logged, never the answer. */
  recordQuietly: (fact: AuditFact) => Promise<void>;
}

function isFormat(value: string): value is ExportFormat {
  return (EXPORT_FORMATS as readonly string[]).includes(value);
}

function invalidParams(c: Context<AppEnv>, message: string, issues: { path: string; message: string }[]): Response {
  return errorJson(c, 'INVALID_PARAMS', message, { issues }, 400);
}

/** An export's params: the list method's schema without the paging members the export owns. */
function exportSchema(list: ExportList): z.ZodType {
  const definition = (methods as Record<string, MethodDefinition>)[list.method]!;
  return (definition.params as unknown as z.ZodObject).omit({ limit: true, cursor: true });
}

export function exportRoute(deps: ExportDeps) {
  const { store, runtime, config, logger } = deps;
  return async (c: Context<AppEnv>): Promise<Response> => {
    const name = c.req.param('list') ?? '';
    if (!isExportListName(name)) {
      return errorJson(c, 'NOT_FOUND', `No export of "${name.slice(0, 100)}"; exports: ${EXPORT_LIST_NAMES.join(', ')}`, { lists: EXPORT_LIST_NAMES }, 404);
    }
    const list = exportLists[name];
    const auditMethod = `export.${name}`;
    c.set('rpcMethod', auditMethod);
    const principal = c.get('principal');
    const correlationId = c.get('correlationId');
    const format = c.req.query('format') ?? 'jsonl';
    const rawText = c.req.query('params') ?? '{}';
    const definition = (methods as Record<string, MethodDefinition>)[list.method]!;
    const fact = { actor: actorOf(principal), channel: channelOf(principal), method: auditMethod, correlationId };
    // Before the params are read, as for an RPC call: a refused caller learns nothing from them.
    if (!principal.scopes.has(definition.scope)) {
      await deps.recordQuietly({ ...fact, params: { format, params: rawText }, outcome: 'FORBIDDEN' });
      return errorJson(
        c,
        'FORBIDDEN',
        `Forbidden: exporting ${name} needs the ${definition.scope} scope (role ${leastRoleFor(definition.scope)} or above); this ${principal.role}'s token does not have it`,
        { method: list.method, required_scope: definition.scope, role: principal.role, needs_role: leastRoleFor(definition.scope) },
        403,
      );
    }
    if (!isFormat(format)) {
      return invalidParams(c, `format must be one of ${EXPORT_FORMATS.join(', ')}`, [{ path: 'format', message: `expected one of ${EXPORT_FORMATS.join(', ')}` }]);
    }
    if (rawText.length > MAX_PARAMS_TEXT) {
      return invalidParams(c, `params is longer than ${MAX_PARAMS_TEXT} characters`, [{ path: 'params', message: `at most ${MAX_PARAMS_TEXT} characters` }]);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(rawText);
    } catch {
      return invalidParams(c, 'params is not JSON', [{ path: 'params', message: 'expected the list params as JSON text' }]);
    }
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      return invalidParams(c, `params must be a JSON object: the params of ${list.method}`, [{ path: '', message: 'expected an object' }]);
    }
    if (nestsDeeperThan(raw, MAX_PARAMS_DEPTH)) {
      return invalidParams(c, `params nest deeper than ${MAX_PARAMS_DEPTH} levels`, [{ path: '', message: `nests deeper than ${MAX_PARAMS_DEPTH} levels (objects and arrays)` }]);
    }
    const schema = exportSchema(list);
    const parsed = schema.safeParse(raw);
    if (!parsed.success) return invalidParams(c, `Invalid params for the ${name} export (the params of ${list.method}, without limit and cursor)`, issuesOf(parsed.error));
    const nulAt = nulTextPath(schema, raw);
    if (nulAt !== undefined) return invalidParams(c, `Invalid params for the ${name} export`, [{ path: nulAt, message: NUL_TEXT_MESSAGE }]);
    const params = parsed.data as Record<string, unknown>;

    // The walk reads through a bulk reader: on SQLite a connection whose small page cache bounds
    // what a whole-table walk leaves in memory. Closed however the walk ends.
    const reader = store.openBulkReader();
    shareCursorSecret(store, reader.store);
    const ctx: HandlerContext = { store: reader.store, runtime, config, logger, principal, correlationId, transport: 'http' };
    let first;
    try {
      first = await list.page(params, undefined, ctx);
    } catch (error) {
      await reader.close();
      if (!(error instanceof RpcError)) throw error;
      return errorJson(c, error.code, error.message, error.details, errorRegistry[error.code].httpStatus === 200 ? 400 : undefined);
    }
    // A read of possibly sensitive data in bulk: who took what out is on the audit trail. The
    // list filter goes in flat, so its ids and values are kept as sent rather than hashed whole.
    const { filter, ...rest } = params;
    const filterMembers = typeof filter === 'object' && filter !== null ? (filter as Record<string, unknown>) : {};
    await deps.recordQuietly({ ...fact, params: { format, ...rest, ...filterMembers }, outcome: 'ok' });

    const started = performance.now();
    const body = exportStream({
      list,
      format,
      params,
      first,
      readPage: (cursor) => list.page(params, cursor, ctx),
      onEnd: ({ outcome, rows, pages, error }) => {
        reader.close().catch((closeError: unknown) => logger.error('export reader did not close', { correlation_id: correlationId, error: String(closeError) }));
        const fields = { correlation_id: correlationId, list: name, format, outcome, rows, pages, ms: Math.round(performance.now() - started) };
        if (outcome === 'failed') logger.error('export failed', { ...fields, error: error instanceof Error ? error.message : String(error) });
        else logger.info('export ended', fields);
      },
    });
    const stamp = store.clock.now().toISOString().replace(/[:.]/g, '-');
    c.set('outcome', 'ok');
    return c.body(body, 200, {
      'content-type': EXPORT_CONTENT_TYPES[format],
      'content-disposition': `attachment; filename="switchboard-${name}-${stamp}.${format}"`,
      'cache-control': 'no-store',
    });
  };
}
