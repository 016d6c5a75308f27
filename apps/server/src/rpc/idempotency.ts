/**
 * The idempotency layer every mutating method opts into by declaring `mutating: true` in the
 * contract. Stores results and non-retryable errors for 24 hours, keyed by (method, token id, key).
 */
import { RpcError, isErrorCode } from '@switchboard/contract';
import type { IdempotencyRepository } from '@switchboard/store';
import { canonicalHash } from './canonical-hash';

interface StoredOutcome {
  result?: unknown;
  error?: { code: string; message: string; details: Record<string, unknown> };
}

/** Crash tests only (SWITCHBOARD_TEST_FAILPOINT): how many keyed effects this process has run. */
let keyedEffects = 0;

export async function withIdempotency<T>(
  repo: IdempotencyRepository,
  ref: { method: string; tokenId: string; key: string | undefined },
  rawParams: unknown,
  run: () => Promise<T>,
  killAfterEffect?: number,
): Promise<T> {
  if (!ref.key) return run();
  const keyRef = { method: ref.method, tokenId: ref.tokenId, key: ref.key };
  const { idempotency_key: _ignored, ...body } = (rawParams ?? {}) as Record<string, unknown>;
  const claim = await repo.claim(keyRef, canonicalHash(body));
  switch (claim.kind) {
    case 'conflict':
      throw new RpcError('IDEMPOTENCY_CONFLICT', 'This idempotency_key was already used with a different body', {
        idempotency_key: ref.key,
      });
    case 'in_progress':
      throw new RpcError('IDEMPOTENCY_IN_PROGRESS', 'A call with this idempotency_key is still running; retry shortly', {
        idempotency_key: ref.key,
      });
    case 'replay':
      return replay<T>(claim.response);
    case 'claimed':
      break;
  }
  try {
    const result = await run();
    if (killAfterEffect !== undefined && ++keyedEffects === killAfterEffect) process.kill(process.pid, 'SIGKILL');
    await repo.complete(keyRef, JSON.stringify({ result } satisfies StoredOutcome));
    return result;
  } catch (err) {
    if (err instanceof RpcError && !err.retryable) {
      await repo.complete(keyRef, JSON.stringify({ error: { code: err.code, message: err.message, details: err.details } } satisfies StoredOutcome));
    } else {
      await repo.release(keyRef);
    }
    throw err;
  }
}

function replay<T>(response: string): T {
  const stored = JSON.parse(response) as StoredOutcome;
  if (stored.error) {
    const code = isErrorCode(stored.error.code) ? stored.error.code : 'INTERNAL';
    throw new RpcError(code, stored.error.message, stored.error.details);
  }
  const result = stored.result as T;
  if (result && typeof result === 'object' && 'idempotency_replayed' in result) {
    return { ...result, idempotency_replayed: true };
  }
  return result;
}
