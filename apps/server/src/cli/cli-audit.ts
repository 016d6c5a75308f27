/** How the command-line tools appear in the audit trail: channel cli, server "cli@HOST". */
import os from 'node:os';
import type { Store } from '@switchboard/store';
import { AuditTrail } from '../audit/audit-trail';

export function cliAudit(store: Store): AuditTrail {
  return new AuditTrail(store, () => `cli@${os.hostname()}`);
}

/** The operating-system account that ran the command: the only actor a CLI knows. */
export function osUser(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'unknown';
  }
}
