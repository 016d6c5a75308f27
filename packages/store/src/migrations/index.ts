import type { Migration, MigrationProvider } from 'kysely';
import type { StoreEngine } from '../engines/engine';
import * as foundation from './001_foundation';
import { runtimeMigration } from './002_runtime';
import * as runtimeIntegrity from './003_runtime_integrity';
import * as readIndexes from './004_read_indexes';
import * as incidentRollup from './005_incident_rollup';
import * as operations from './006_operations';
import { incidentStatesMigration } from './007_incident_states';
import * as decisionsAsSeen from './008_decisions_as_seen';
import { nodesAndChangesMigration } from './009_nodes_and_changes';
import * as operationLeases from './014_operation_leases';
import * as incidentCause from './015_incident_cause';
import * as decisionGuards from './016_decision_guards';
import * as people from './017_people';
import * as audit from './018_audit';
import * as mailboxApprovals from './019_mailbox_approvals';
import * as alerts from './020_alerts';
import * as traceContext from './021_trace_context';
import * as serverNames from './022_server_names';
import * as retention from './023_retention';
import * as savedViews from './024_saved_views';
import * as incidentMinutes from './026_incident_minutes';
import * as incidentSixHours from './027_incident_six_hours';

/** A migration that changes nothing of its own: the name of engine-only steps (see withEngineSteps). */
const engineStepsOnly: Migration = { async up() {}, async down() {} };

/**
 * `shared` with the engine's extra steps for `name` run after it on the way up and before it on
 * the way down. The name stays the one existing databases recorded.
 */
function withEngineSteps(name: string, shared: Migration, engine: StoreEngine): Migration {
  const extra = engine.extraMigrationSteps[name];
  if (!extra) return shared;
  return {
    async up(db) {
      await shared.up(db);
      await extra.up?.(db);
    },
    async down(db) {
      await extra.down?.(db);
      await shared.down?.(db);
    },
  };
}

/**
 * Migrations live in code (not files on disk) so they ship inside the package and run at boot.
 * Every engine runs the same names in the same order; an engine adds steps to some of them.
 */
export function migrationProvider(engine: StoreEngine): MigrationProvider {
  return {
    async getMigrations(): Promise<Record<string, Migration>> {
      const shared: Record<string, Migration> = {
        '001_foundation': foundation,
        '002_runtime': runtimeMigration(engine.autoIncrementKey),
        '003_runtime_integrity': runtimeIntegrity,
        '004_read_indexes': readIndexes,
        '005_incident_rollup': incidentRollup,
        '006_operations': operations,
        '007_incident_states': incidentStatesMigration(engine.autoIncrementKey),
        '008_decisions_as_seen': decisionsAsSeen,
        '009_nodes_and_changes': nodesAndChangesMigration(engine.autoIncrementKey),
        '010_claim_plan': engineStepsOnly,
        '011_sparse_indexes': engineStepsOnly,
        '012_claim_plan_cached': engineStepsOnly,
        '013_write_guard': engineStepsOnly,
        '014_operation_leases': operationLeases,
        '015_incident_cause': incidentCause,
        '016_decision_guards': decisionGuards,
        '017_people': people,
        '018_audit': audit,
        '019_mailbox_approvals': mailboxApprovals,
        '020_alerts': alerts,
        '021_trace_context': traceContext,
        '022_server_names': serverNames,
        '023_retention': retention,
        '024_saved_views': savedViews,
        '025_payload_search': engineStepsOnly,
        '026_incident_minutes': incidentMinutes,
        '027_incident_six_hours': incidentSixHours,
        '028_sqlite_sparse_indexes': engineStepsOnly,
        '029_sqlite_lighter_writes': engineStepsOnly,
      };
      return Object.fromEntries(Object.entries(shared).map(([name, migration]) => [name, withEngineSteps(name, migration, engine)]));
    },
  };
}
