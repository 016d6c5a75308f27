import { sql, type Kysely } from 'kysely';
import type { AutoIncrementKey } from '../engines/engine';

/**
 * Runtime records. Every event.list filter has an index whose trailing columns are the page order
 * (created_at DESC, seq DESC), so a page is an index range walk at any depth.
 */
export function runtimeMigration(autoIncrement: AutoIncrementKey) {
  const serial = autoIncrement.type;
  const pk = autoIncrement.primaryKey;
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema
        .createTable('runs')
        .addColumn('run_id', 'text', (c) => c.primaryKey())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('root_event_id', 'text', (c) => c.notNull())
        .addColumn('event_name', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text')
        .addColumn('bundle_fingerprint', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('settled_at', 'text')
        .execute();
      await db.schema.createIndex('runs_status').on('runs').columns(['status', 'created_at']).execute();

      await db.schema
        .createTable('events')
        .addColumn('seq', serial as any, pk)
        .addColumn('event_id', 'text', (c) => c.notNull().unique())
        .addColumn('event_name', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text')
        .addColumn('run_id', 'text')
        .addColumn('chain_depth', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('parent_event_id', 'text')
        .addColumn('has_dead_letter', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await db.schema.createIndex('events_page').on('events').columns(['created_at', 'seq']).execute();
      await db.schema.createIndex('events_entity').on('events').columns(['entity_id', 'created_at', 'seq']).execute();
      await db.schema.createIndex('events_name').on('events').columns(['event_name', 'created_at', 'seq']).execute();
      await db.schema.createIndex('events_run').on('events').columns(['run_id', 'created_at', 'seq']).execute();
      await db.schema
        .createIndex('events_dead')
        .on('events')
        .columns(['created_at', 'seq'])
        .where(sql.ref('has_dead_letter'), '=', 1)
        .execute();

      await db.schema
        .createTable('deliveries')
        .addColumn('delivery_id', 'text', (c) => c.primaryKey())
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('event_seq', 'integer', (c) => c.notNull())
        .addColumn('event_created_at', 'text', (c) => c.notNull())
        .addColumn('run_id', 'text')
        .addColumn('subscriber_id', 'text', (c) => c.notNull())
        .addColumn('subscriber_type', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('max_attempts', 'integer', (c) => c.notNull())
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .addColumn('lease_owner', 'text')
        .addColumn('lease_expires_at', 'text')
        .addColumn('last_error', 'text')
        .addColumn('reason_code', 'text')
        .addColumn('session_id', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('deliveries_event').on('deliveries').column('event_id').execute();
      await db.schema
        .createIndex('deliveries_claim')
        .on('deliveries')
        .columns(['status', 'next_attempt_at'])
        .execute();
      await db.schema
        .createIndex('deliveries_subscriber_page')
        .on('deliveries')
        .columns(['subscriber_id', 'event_created_at', 'event_seq'])
        .execute();
      await db.schema
        .createIndex('deliveries_reason_page')
        .on('deliveries')
        .columns(['reason_code', 'event_created_at', 'event_seq'])
        .execute();
      await db.schema.createIndex('deliveries_run').on('deliveries').columns(['run_id', 'status']).execute();

      await db.schema
        .createTable('dead_letters')
        .addColumn('dead_letter_id', 'text', (c) => c.primaryKey())
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('event_seq', 'integer', (c) => c.notNull())
        .addColumn('event_created_at', 'text', (c) => c.notNull())
        .addColumn('delivery_id', 'text')
        .addColumn('run_id', 'text')
        .addColumn('subscriber_id', 'text')
        .addColumn('chain_depth', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('failure_type', 'text', (c) => c.notNull())
        .addColumn('retry_count', 'integer', (c) => c.notNull())
        .addColumn('error_message', 'text')
        .addColumn('handler_node', 'text')
        .addColumn('reason_code', 'text')
        .execute();
      await db.schema.createIndex('dead_letters_event').on('dead_letters').column('event_id').execute();
      await db.schema
        .createIndex('dead_letters_reason_page')
        .on('dead_letters')
        .columns(['reason_code', 'event_created_at', 'event_seq'])
        .execute();

      await db.schema
        .createTable('logs')
        .addColumn('seq', serial as any, pk)
        .addColumn('log_id', 'text', (c) => c.notNull().unique())
        .addColumn('ts', 'text', (c) => c.notNull())
        .addColumn('level', 'text', (c) => c.notNull())
        .addColumn('level_rank', 'integer', (c) => c.notNull())
        .addColumn('component', 'text', (c) => c.notNull())
        .addColumn('error_code', 'text')
        .addColumn('message', 'text', (c) => c.notNull())
        .addColumn('is_mcp', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('event_id', 'text')
        .addColumn('run_id', 'text')
        .addColumn('delivery_id', 'text')
        .addColumn('dead_letter_id', 'text')
        .addColumn('entity_id', 'text')
        .addColumn('session_id', 'text')
        .execute();
      await db.schema.createIndex('logs_ts').on('logs').columns(['ts']).execute();
      await db.schema
        .createIndex('logs_group')
        .on('logs')
        .columns(['component', 'error_code', 'ts'])
        .execute();
      await db.schema.createIndex('logs_mcp_ts').on('logs').columns(['is_mcp', 'ts']).execute();

      await db.schema
        .createTable('entities')
        .addColumn('entity_id', 'text', (c) => c.primaryKey())
        .addColumn('entity_type', 'text', (c) => c.notNull())
        .addColumn('current_state', 'text', (c) => c.notNull())
        .addColumn('flow_instance', 'text', (c) => c.notNull())
        .addColumn('revision', 'integer', (c) => c.notNull())
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text')
        .addColumn('slug', 'text')
        .addColumn('fields', 'text', (c) => c.notNull())
        .addColumn('accumulated', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('mailbox_items')
        .addColumn('seq', serial as any, pk)
        .addColumn('mailbox_id', 'text', (c) => c.notNull().unique())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('priority', 'text', (c) => c.notNull())
        .addColumn('source_flow', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('decided_at', 'text')
        .addColumn('decision', 'text')
        .addColumn('source_entity_id', 'text')
        .addColumn('source_event_id', 'text')
        .addColumn('run_id', 'text')
        .execute();
      await db.schema.createIndex('mailbox_status').on('mailbox_items').columns(['status', 'seq']).execute();

      await db.schema
        .createTable('mailbox_history')
        .addColumn('seq', serial as any, pk)
        .addColumn('mailbox_id', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('actor_token_id', 'text', (c) => c.notNull())
        .addColumn('ts', 'text', (c) => c.notNull())
        .addColumn('decision_payload', 'text')
        .addColumn('reason', 'text')
        .addColumn('decision_id', 'text')
        .execute();
      await db.schema.createIndex('mailbox_history_item').on('mailbox_history').columns(['mailbox_id', 'seq']).execute();

      await db.schema
        .createTable('agents')
        .addColumn('agent_id', 'text', (c) => c.primaryKey())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('model_tier', 'text', (c) => c.notNull())
        .addColumn('conversation_mode', 'text', (c) => c.notNull())
        .addColumn('session_scope', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('current_session_id', 'text')
        .addColumn('last_turn_id', 'text')
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('conversations')
        .addColumn('seq', serial as any, pk)
        .addColumn('session_id', 'text', (c) => c.notNull().unique())
        .addColumn('agent_id', 'text', (c) => c.notNull())
        .addColumn('scope_key', 'text', (c) => c.notNull())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('message_count', 'integer', (c) => c.notNull())
        .addColumn('turn_count', 'integer', (c) => c.notNull())
        .addColumn('ended_at', 'text')
        .addColumn('run_id', 'text')
        .execute();
      await db.schema.createIndex('conversations_agent').on('conversations').columns(['agent_id', 'scope_key', 'status']).execute();

      await db.schema
        .createTable('turns')
        .addColumn('turn_id', 'text', (c) => c.primaryKey())
        .addColumn('session_id', 'text', (c) => c.notNull())
        .addColumn('turn_index', 'integer', (c) => c.notNull())
        .addColumn('latency_ms', 'integer', (c) => c.notNull())
        .addColumn('parse_ok', 'integer', (c) => c.notNull())
        .addColumn('trigger_event_id', 'text', (c) => c.notNull())
        .addColumn('trigger_event_type', 'text', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('request_payload', 'text')
        .addColumn('response_payload', 'text')
        .addColumn('tool_calls', 'text')
        .addColumn('turn_blocks', 'text')
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('completed_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('turns_session').on('turns').columns(['session_id', 'turn_index']).execute();

      await db.schema
        .createTable('ingress_queue')
        .addColumn('seq', serial as any, pk)
        .addColumn('queue_id', 'text', (c) => c.notNull().unique())
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('run_id', 'text', (c) => c.notNull())
        .addColumn('event_name', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('entity_id', 'text')
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('queued_at', 'text', (c) => c.notNull())
        .addColumn('released_at', 'text')
        .execute();
      await db.schema.createIndex('ingress_queue_status').on('ingress_queue').columns(['status', 'seq']).execute();

      await db.schema
        .createTable('resets')
        .addColumn('reset_id', 'text', (c) => c.primaryKey())
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('finished_at', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('actor_token_id', 'text')
        .addColumn('plan_hash', 'text')
        .addColumn('result', 'text')
        .execute();

      await db.schema
        .createTable('containers')
        .addColumn('container_id', 'text', (c) => c.primaryKey())
        .addColumn('entity_id', 'text', (c) => c.notNull())
        .addColumn('implementation', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('pid', 'integer')
        .addColumn('started_at', 'text', (c) => c.notNull())
        .addColumn('stopped_at', 'text')
        .addColumn('last_error', 'text')
        .execute();
    },
  };
}
