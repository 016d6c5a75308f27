import type { Conversation, Turn } from '@switchboard/contract';
import type { ConversationRow, TurnRow } from '@switchboard/store';
import { omitAbsent, parseJsonArray, parseJsonObject } from './omit-absent';

export function toConversation(row: ConversationRow): Conversation {
  return omitAbsent({
    agent_id: row.agent_id,
    session_id: row.session_id,
    started_at: row.started_at,
    status: row.status as Conversation['status'],
    message_count: row.message_count,
    turn_count: row.turn_count,
    ended_at: row.ended_at,
    run_id: row.run_id,
  });
}

export function toTurn(row: TurnRow): Turn {
  return omitAbsent({
    turn_id: row.turn_id,
    turn_index: row.turn_index,
    latency_ms: row.latency_ms,
    parse_ok: Number(row.parse_ok) === 1,
    trigger_event_id: row.trigger_event_id,
    trigger_event_type: row.trigger_event_type,
    error: row.error,
    request_payload: parseJsonObject(row.request_payload),
    response_payload: parseJsonObject(row.response_payload),
    tool_calls: parseJsonArray(row.tool_calls) as Turn['tool_calls'],
    turn_blocks: parseJsonArray(row.turn_blocks),
    started_at: row.started_at,
    completed_at: row.completed_at,
  });
}
