/**
 * The keyset positions the store's list reads end on, as a cursor carries them. The store defines
 * each position; these schemas check a decoded cursor against it, since a cursor is client input.
 */
import type { AgentPosition, AlertNoticePosition, AuditPosition, ConversationPosition, EventPosition, MailboxPosition, OperationPosition } from '@switchboard/store';
import { z } from 'zod';

export const agentPosition: z.ZodType<AgentPosition> = z.strictObject({ agent_id: z.string() });
export const alertNoticePosition: z.ZodType<AlertNoticePosition> = z.strictObject({ created_at: z.string().min(1), id: z.string().min(1) });
export const auditPosition: z.ZodType<AuditPosition> = z.strictObject({ seq: z.number().int().min(1) });
export const conversationPosition: z.ZodType<ConversationPosition> = z.strictObject({ started_at: z.string(), seq: z.number().int() });
export const eventPosition: z.ZodType<EventPosition> = z.strictObject({ created_at: z.string(), seq: z.number().int() });
export const mailboxPosition: z.ZodType<MailboxPosition> = z.strictObject({ pending: z.boolean(), seq: z.number().int() });
export const operationPosition: z.ZodType<OperationPosition> = z.strictObject({ created_at: z.string(), operation_id: z.string() });
