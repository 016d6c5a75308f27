import { z } from 'zod';
import { defineMethod } from '../method';
import { agent, lastTurnRef, sessionRef } from '../records';
import { nextCursor, pageCursor, pageLimit } from './common';

export const agentList = defineMethod({
  name: 'agent.list',
  summary: 'Agents declared by the bundle with their operational status and last turn outcome.',
  params: z.strictObject({ limit: pageLimit, cursor: pageCursor }),
  result: z.object({
    agents: z.array(agent.extend({ last_turn_ref: lastTurnRef.optional(), current_session_ref: sessionRef.optional() })),
    next_cursor: nextCursor,
  }),
  errors: ['INVALID_CURSOR'],
  scope: 'read',
  mutating: false,
});

export const agentGet = defineMethod({
  name: 'agent.get',
  summary: "One agent's identity, status and references to its current session and last turn (never transcripts).",
  params: z.strictObject({ agent_id: z.string().min(1) }),
  result: z.object({
    agent,
    current_session_ref: sessionRef.optional(),
    last_turn_ref: lastTurnRef.optional(),
  }),
  errors: ['NOT_FOUND'],
  scope: 'read',
  mutating: false,
});
