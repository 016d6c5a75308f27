import type { Migration } from 'kysely';
import { claimIndexesSteps } from './009_nodes_and_changes';
import { claimPlanSteps } from './010_claim_plan';
import { sparseIndexesSteps } from '../../../migrations/sparse-indexes';
import { claimPlanCachedSteps } from './012_claim_plan_cached';
import { writeGuardSteps } from './013_write_guard';
import { payloadSearchSteps } from './025_payload_search';

/**
 * PostgreSQL's steps in the shared migrations, by the shared migration's name (each file here is
 * named after it). 010, 012, 013 and 025 are PostgreSQL's alone: on SQLite they record their name and
 * change nothing.
 */
export const postgresMigrationSteps: Readonly<Record<string, Partial<Migration>>> = {
  '009_nodes_and_changes': claimIndexesSteps(),
  '010_claim_plan': claimPlanSteps(),
  '011_sparse_indexes': sparseIndexesSteps(),
  '012_claim_plan_cached': claimPlanCachedSteps(),
  '013_write_guard': writeGuardSteps(),
  '025_payload_search': payloadSearchSteps(),
};
