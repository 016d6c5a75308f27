/**
 * The server's one way to write the audit trail. RPC calls record through `forCall` (see
 * method-executor.ts); sign-in, sign-out, refused requests and the CLI call `record` directly.
 */
import { createHash } from 'node:crypto';
import type { AuditEntry, Store, StoreTx } from '@switchboard/store';
import type { Principal } from '../rpc/handler';
import { summariseParams, targetIdsOf } from './params-summary';

export type AuditChannel = AuditEntry['channel'];

/** Who acted, as a record names them; absent for a caller who never authenticated. */
export interface AuditActor {
  userId?: string;
  userName?: string;
  tokenId?: string;
}

export interface AuditFact {
  actor?: AuditActor;
  channel: AuditChannel;
  /** An RPC method, or auth.sign_in, auth.sign_in_failed, auth.sign_out, ws.upgrade, cli.*; for an UNAUTHENTICATED request, the RPC method in its path or its HTTP method and path. */
  method: string;
  /** Summarised before it is stored (see params-summary.ts): pass the raw params. */
  params?: unknown;
  /** Result of the call, when there is one: the ids it names become targets. */
  result?: unknown;
  targetIds?: readonly string[];
  /** 'ok' or an error code. */
  outcome: string;
  correlationId?: string;
}

/** A request's channel: a bearer token is the API, the session cookie the console. */
export function channelOf(principal: Pick<Principal, 'via'>): AuditChannel {
  return principal.via === 'cookie' ? 'console' : 'api';
}

export function actorOf(principal: Pick<Principal, 'userId' | 'userName' | 'tokenId'>): AuditActor {
  return { userId: principal.userId, userName: principal.userName, tokenId: principal.tokenId };
}

/**
 * A short fingerprint of a bearer secret someone presented and that did not authenticate: enough
 * to tell repeated attempts with one value apart from many, never enough to recover it.
 */
export function presentedSecretFingerprint(secret: string): string {
  return createHash('sha256').update(secret).digest('hex').slice(0, 12);
}

export class AuditTrail {
  constructor(
    private readonly store: Store,
    private readonly serverId: () => string,
  ) {}

  /** Appends the record; inside `tx` it commits with that transaction, else in its own. */
  record(fact: AuditFact, tx?: StoreTx): Promise<void> {
    return this.store.audit.append(this.entryOf(fact), tx);
  }

  /**
   * Like record, for paths where the record must not change the answer (a refused request): a
   * failure to write is logged by the caller's `onFailure`, not thrown.
   */
  async recordQuietly(fact: AuditFact, onFailure: (error: unknown) => void): Promise<void> {
    try {
      await this.record(fact);
    } catch (error) {
      onFailure(error);
    }
  }

  private entryOf(fact: AuditFact): AuditEntry {
    const targets = [...(fact.targetIds ?? []), ...targetIdsOf(fact.params, fact.result)];
    return {
      userId: fact.actor?.userId,
      userName: fact.actor?.userName,
      tokenId: fact.actor?.tokenId,
      channel: fact.channel,
      serverId: this.serverId(),
      method: fact.method,
      targetIds: targets,
      paramsSummary: summariseParams(fact.params),
      outcome: fact.outcome,
      correlationId: fact.correlationId,
    };
  }
}

/** The credentials a refused request presented, as its record may name them. */
export interface PresentedCredentials {
  authorization?: string | null;
  /** Whether a session cookie came with the request. */
  sessionCookie: boolean;
}

/**
 * The record of a request refused as UNAUTHENTICATED: no actor (none was established), the
 * channel its credentials point to, and a short fingerprint of a presented bearer secret.
 */
export function unauthenticatedFact(presented: PresentedCredentials, where: { method: string; path: string; reason: string; correlationId?: string }): AuditFact {
  const bearer = presented.authorization ? /^Bearer\s+(\S+)\s*$/i.exec(presented.authorization)?.[1] : undefined;
  return {
    channel: presented.authorization || !presented.sessionCookie ? 'api' : 'console',
    method: where.method,
    params: {
      path: where.path.slice(0, 200),
      reason: where.reason,
      ...(bearer ? { presented_secret: presentedSecretFingerprint(bearer) } : {}),
      ...(presented.authorization && !bearer ? { malformed_authorization: true } : {}),
    },
    outcome: 'UNAUTHENTICATED',
    correlationId: where.correlationId,
  };
}
