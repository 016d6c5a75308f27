/**
 * The idempotency layer every mutating method opts into by declaring `mutating: true` in the
 * contract. Stores results and non-retryable errors for 24 hours, keyed by (method, token id, key).
 *
 * Every mutating call gets a `MutationCall` whose `answerWith` the handler hands the runtime: the
 * runtime calls it inside the effect's own transaction, where it writes what must commit with the
 * effect: the audit record always (`withEffect`), the stored answer when the call is keyed. So
 * after a crash a retry either finds the stored answer or finds that nothing was committed. An in-progress claim names the server running it; a crashed server's
 * claims are dropped once its heartbeat lapses (ServerRegistry), never while it is alive.
 */
import { RpcError, isErrorCode } from '@switchboard/contract';
import type { OnEffectCommit } from '@switchboard/runtime';
import type { IdempotencyKeyRef, IdempotencyRepository } from '@switchboard/store';
import type { z } from 'zod';
import { canonicalHash } from './canonical-hash';

interface StoredOutcome {
  result?: unknown;
  error?: { code: string; message: string; details: Record<string, unknown> };
}

/** The mutating call in progress, as handlers see it. */
export interface MutationCall {
  /**
   * A commit hook for the runtime operation that is this call's effect: in the effect's own
   * transaction it records the call (audit) and, for a keyed call, stores the answer the handler
   * will return (`toResult` of the operation's outcome, as the contract shapes it).
   */
  answerWith<O>(toResult: (outcome: O) => unknown): OnEffectCommit<O>;
}

/** What else commits with a mutating call's effect, given the call's result (its audit record). */
export type WithEffect = (trx: Parameters<OnEffectCommit<unknown>>[0], result: unknown) => Promise<void>;

/** Crash tests only (SWITCHBOARD_TEST_FAILPOINT): how many keyed effects this process has run. */
let keyedEffects = 0;

export async function withIdempotency<T>(
  repo: IdempotencyRepository,
  ref: { method: string; tokenId: string; key: string | undefined; serverId: string },
  rawParams: unknown,
  resultSchema: z.ZodType,
  withEffect: WithEffect,
  run: (call: MutationCall) => Promise<T>,
  killAfterEffect?: number,
): Promise<T> {
  if (!ref.key) {
    return run({
      answerWith: (toResult) => async (trx, outcome) => withEffect(trx, resultSchema.parse(toResult(outcome))),
    });
  }
  const keyRef: IdempotencyKeyRef = { method: ref.method, tokenId: ref.tokenId, key: ref.key };
  const { idempotency_key: _ignored, ...body } = (rawParams ?? {}) as Record<string, unknown>;
  const claim = await repo.claim(keyRef, canonicalHash(body), ref.serverId);
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
  let answeredWithEffect = false;
  const call: MutationCall = {
    answerWith: (toResult) => async (trx, outcome) => {
      const result = resultSchema.parse(toResult(outcome));
      await repo.complete(keyRef, JSON.stringify({ result } satisfies StoredOutcome), trx);
      await withEffect(trx, result);
      answeredWithEffect = true;
    },
  };
  try {
    const result = await run(call);
    if (killAfterEffect !== undefined && ++keyedEffects === killAfterEffect) process.kill(process.pid, 'SIGKILL');
    // Calls whose handler has no effect transaction (a dry run) store their answer now.
    if (!answeredWithEffect) await repo.complete(keyRef, JSON.stringify({ result } satisfies StoredOutcome));
    return result;
  } catch (err) {
    if (answeredWithEffect) {
      // The answer was written in the effect's transaction; if that commit failed (a group commit
      // fails for all its members), the claim is still in progress: free it for the retry. A
      // committed answer is left alone (release only drops in-progress claims).
      await releaseOrRetry(repo, keyRef);
      throw err;
    }
    if (err instanceof RpcError && !err.retryable) {
      await repo.complete(keyRef, JSON.stringify({ error: { code: err.code, message: err.message, details: err.details } } satisfies StoredOutcome)).catch(() => releaseOrRetry(repo, keyRef));
    } else {
      await releaseOrRetry(repo, keyRef);
    }
    throw err;
  }
}

const RELEASE_RETRY_MS = 1_000;
const RELEASE_GIVE_UP_MS = 10 * 60 * 1000;

/**
 * Frees a claim for the retry. When the store cannot be reached (the failure that ended the call
 * is often the same lost connection), the release is tried again every second in the background:
 * otherwise the key would answer IDEMPOTENCY_IN_PROGRESS for as long as this server lives, since
 * only a dead server's claims are taken over. A release only removes a claim still in progress, so
 * one that runs after the effect did commit changes nothing.
 */
async function releaseOrRetry(repo: IdempotencyRepository, keyRef: IdempotencyKeyRef): Promise<void> {
  try {
    await repo.release(keyRef);
  } catch {
    const giveUpAt = Date.now() + RELEASE_GIVE_UP_MS;
    const retry = () =>
      void repo.release(keyRef).catch(() => {
        if (Date.now() < giveUpAt) setTimeout(retry, RELEASE_RETRY_MS).unref();
      });
    setTimeout(retry, RELEASE_RETRY_MS).unref();
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
