import type { Migration, MigrationProvider } from 'kysely';
import type { Engine } from '../engine';
import * as foundation from './001_foundation';
import { runtimeMigration } from './002_runtime';
import * as runtimeIntegrity from './003_runtime_integrity';
import * as readIndexes from './004_read_indexes';
import * as incidentRollup from './005_incident_rollup';
import * as operations from './006_operations';
import { incidentStatesMigration } from './007_incident_states';
import * as decisionsAsSeen from './008_decisions_as_seen';
import { nodesAndChangesMigration } from './009_nodes_and_changes';
import { claimPlanMigration } from './010_claim_plan';
import { sparseIndexesMigration } from './011_sparse_indexes';
import { claimPlanCachedMigration } from './012_claim_plan_cached';
import { writeGuardMigration } from './013_write_guard';
import * as operationLeases from './014_operation_leases';
import * as incidentCause from './015_incident_cause';
import * as decisionGuards from './016_decision_guards';
import * as people from './017_people';
import * as audit from './018_audit';
import * as mailboxApprovals from './019_mailbox_approvals';
import * as alerts from './020_alerts';

/** Migrations live in code (not files on disk) so they ship inside the package and run at boot. */
export function migrationProvider(engine: Engine): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      return {
        '001_foundation': foundation,
        '002_runtime': runtimeMigration(engine),
        '003_runtime_integrity': runtimeIntegrity,
        '004_read_indexes': readIndexes,
        '005_incident_rollup': incidentRollup,
        '006_operations': operations,
        '007_incident_states': incidentStatesMigration(engine),
        '008_decisions_as_seen': decisionsAsSeen,
        '009_nodes_and_changes': nodesAndChangesMigration(engine),
        '010_claim_plan': claimPlanMigration(engine),
        '011_sparse_indexes': sparseIndexesMigration(engine),
        '012_claim_plan_cached': claimPlanCachedMigration(engine),
        '013_write_guard': writeGuardMigration(engine),
        '014_operation_leases': operationLeases,
        '015_incident_cause': incidentCause,
        '016_decision_guards': decisionGuards,
        '017_people': people,
        '018_audit': audit,
        '019_mailbox_approvals': mailboxApprovals,
        '020_alerts': alerts,
      };
    },
  };
}
