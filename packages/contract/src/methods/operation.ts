/**
 * Recovery operations (additive in v1): the durable background operations event.redrive and
 * event.replay start, read, listed and cancelled here.
 */
import { z } from 'zod';
import { defineMethod } from '../method';
import { operation, operationItem, operationKind, operationStatus } from '../records';
import { idempotencyKey, nextCursor, pageCursor, pageLimit } from './common';

export const operationGet = defineMethod({
  name: 'operation.get',
  summary: 'Additive: one redrive or replay operation, with its progress and the items it acted on.',
  params: z.strictObject({
    operation_id: z.string().min(1),
    items_limit: z.number().int().min(0).max(500).optional().describe('items returned, in order, default 50'),
  }),
  result: z.object({ operation, items: z.array(operationItem) }),
  errors: ['NOT_FOUND'],
  scope: 'read',
  mutating: false,
});

export const operationList = defineMethod({
  name: 'operation.list',
  summary: 'Additive: redrive and replay operations, newest first.',
  params: z.strictObject({
    status: operationStatus.optional(),
    kind: operationKind.optional(),
    limit: pageLimit,
    cursor: pageCursor,
  }),
  result: z.object({ operations: z.array(operation), next_cursor: nextCursor }),
  errors: ['INVALID_CURSOR'],
  scope: 'read',
  mutating: false,
});

export const operationCancel = defineMethod({
  name: 'operation.cancel',
  summary: 'Additive: stops a running operation; what it already sent stays sent. A finished operation is returned unchanged.',
  params: z.strictObject({ operation_id: z.string().min(1), idempotency_key: idempotencyKey }),
  result: z.object({ operation, cancelled: z.boolean().describe('true when this call stopped it') }),
  errors: ['NOT_FOUND', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_IN_PROGRESS'],
  scope: 'events:redrive',
  mutating: true,
});
