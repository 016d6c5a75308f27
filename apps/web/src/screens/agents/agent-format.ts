import type { Agent } from '@switchboard/contract';

export const AGENT_STATUS_TONE: Record<Agent['status'], 'ok' | 'info' | 'bad'> = { idle: 'ok', busy: 'info', error: 'bad' };
