import { z } from 'zod';
import { defineMethod } from '../method';
import { conversation, conversationStatus, turn } from '../records';
import { nextCursor, pageCursor, pageLimit } from './common';

export const conversationList = defineMethod({
  name: 'conversation.list',
  summary: 'Conversations (agent sessions), newest first.',
  params: z.strictObject({
    filter: z
      .strictObject({
        agent_id: z.string().min(1).optional(),
        run_id: z.string().min(1).optional(),
        status: conversationStatus.optional(),
      })
      .optional(),
    limit: pageLimit,
    cursor: pageCursor,
  }),
  result: z.object({ conversations: z.array(conversation), next_cursor: nextCursor }),
  errors: ['INVALID_CURSOR'],
  scope: 'read',
  mutating: false,
});

export const conversationGet = defineMethod({
  name: 'conversation.get',
  summary: 'One conversation in full: session metadata plus all turns and turn blocks.',
  params: z.strictObject({ session_id: z.string().min(1) }),
  result: z.object({ conversation, turns: z.array(turn) }),
  errors: ['NOT_FOUND'],
  scope: 'read',
  mutating: false,
});
