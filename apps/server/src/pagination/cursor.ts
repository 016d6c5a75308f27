/**
 * Keyset cursors for list methods (v1-decisions, Pagination): opaque to clients, HMAC-signed so a
 * changed byte is refused, and bound to the method and a hash of the filter they were minted for,
 * so a cursor cannot be replayed against another method or filter. The page size is not part of
 * the binding: a client may change `limit` between pages.
 *
 * Wire form: base64url(JSON body) "." base64url(HMAC-SHA256(secret, body)). The secret lives in the
 * store (runtime_state `cursor_secret`), so cursors survive restarts and every server process on
 * one database accepts the others' cursors.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { RpcError, type MethodName } from '@switchboard/contract';
import type { Store } from '@switchboard/store';
import type { z } from 'zod';
import { canonicalHash } from '../rpc/canonical-hash';

const SECRET_KEY = 'cursor_secret';
const CURSOR_VERSION = 1;
const secrets = new WeakMap<Store, Promise<Buffer>>();

async function loadSecret(store: Store): Promise<Buffer> {
  // Insert-if-absent then read back: concurrent first uses (or processes) all end up on one secret.
  const value = await store.runtimeState.setIfAbsent(SECRET_KEY, randomBytes(32).toString('base64url'));
  return Buffer.from(value, 'base64url');
}

function secretFor(store: Store): Promise<Buffer> {
  let secret = secrets.get(store);
  if (!secret) {
    secret = loadSecret(store);
    secret.catch(() => secrets.delete(store));
    secrets.set(store, secret);
  }
  return secret;
}

/**
 * Lets `reader` (a bulk reader of `store`, which refuses writes) sign and check cursors with
 * `store`'s secret, loaded through `store`: the first load may insert it.
 */
export function shareCursorSecret(store: Store, reader: Store): void {
  if (reader !== store) secrets.set(reader, secretFor(store));
}

/** `store`'s cursor secret (loaded, or created on first use): what a reader thread is given. */
export function cursorSecretOf(store: Store): Promise<Buffer> {
  return secretFor(store);
}

/** Lets `reader` (a reader thread's store) sign and check cursors with a secret handed to its thread. */
export function useCursorSecret(reader: Store, secret: Buffer): void {
  secrets.set(reader, Promise.resolve(secret));
}

/** The filter a cursor is bound to: everything that decides membership and order, defaults applied. */
export function filterHash(filter: unknown): string {
  // 128 bits of the hash keeps cursors short; collisions across filters are not a practical risk.
  return canonicalHash(filter).slice(0, 32);
}

function sign(secret: Buffer, body: string): string {
  return createHmac('sha256', secret).update(body).digest('base64url');
}

function invalid(message: string): RpcError {
  return new RpcError('INVALID_CURSOR', message, {});
}

export async function encodeCursor<P>(store: Store, method: MethodName, filter: unknown, position: P): Promise<string> {
  const body = Buffer.from(JSON.stringify({ v: CURSOR_VERSION, m: method, f: filterHash(filter), p: position })).toString('base64url');
  return `${body}.${sign(await secretFor(store), body)}`;
}

/**
 * The position a cursor carries, after checking its signature, method and filter binding, and
 * the position's shape. Any failure is INVALID_CURSOR; the reason is in the message.
 */
export async function decodeCursor<S extends z.ZodType>(
  store: Store,
  method: MethodName,
  filter: unknown,
  cursor: string,
  position: S,
): Promise<z.output<S>> {
  const parts = cursor.split('.');
  if (parts.length !== 2 || !parts[0] || !parts[1] || !/^[A-Za-z0-9_-]+$/.test(parts[0] + parts[1])) {
    throw invalid('Cursor is malformed; pass next_cursor exactly as returned');
  }
  const [body, mac] = parts as [string, string];
  const expected = Buffer.from(sign(await secretFor(store), body));
  const given = Buffer.from(mac);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw invalid('Cursor signature does not match; it was altered or not issued by this server');
  }
  let decoded: { v?: unknown; m?: unknown; f?: unknown; p?: unknown };
  try {
    decoded = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw invalid('Cursor is malformed; pass next_cursor exactly as returned');
  }
  if (decoded.v !== CURSOR_VERSION) throw invalid('Cursor version is not supported');
  if (decoded.m !== method) throw invalid(`Cursor was issued for ${String(decoded.m)}, not ${method}`);
  if (decoded.f !== filterHash(filter)) {
    throw invalid('Cursor was issued for a different filter; start again without a cursor when the filter changes');
  }
  const parsed = position.safeParse(decoded.p);
  if (!parsed.success) throw invalid('Cursor position is malformed');
  return parsed.data;
}
