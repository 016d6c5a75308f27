/**
 * Saved views (additive in v1): a named set of filters for one of the console's lists (events,
 * dead letters, incidents, mailbox), kept per person. A view is private to its owner unless
 * shared; shared views are listed to everyone who may read, with their owner's name. Everything
 * needs only `read`: a viewer keeps views of their own. Only the owner (or an admin, for a shared
 * view) changes or deletes one; someone else's private view does not exist for the caller
 * (NOT_FOUND).
 */
import { z } from 'zod';
import { defineMethod } from '../method';
import { timestamp } from '../records';
import {
  MAX_SAVED_VIEW_FILTERS,
  MAX_SAVED_VIEW_NAME_LENGTH,
  MAX_SAVED_VIEW_REPEATS,
  MAX_SAVED_VIEW_VALUE_LENGTH,
  MAX_SAVED_VIEWS_PER_LIST,
  SAVED_VIEW_FILTER_NAME,
  SAVED_VIEW_LISTS,
} from '../limits';
import { idempotencyKey } from './common';

export const savedViewList = z.enum(SAVED_VIEW_LISTS).describe('the console list the view filters: events, dead_letters, incidents or mailbox');
export type SavedViewList = z.infer<typeof savedViewList>;

const viewId = z.string().min(1).max(100);
const viewName = z.string().trim().min(1).max(MAX_SAVED_VIEW_NAME_LENGTH);

/** A URL search param's name as the console writes them: lower-case words, digits, `_` and `.`. */
const filterKey = z
  .string()
  .regex(SAVED_VIEW_FILTER_NAME, 'a filter name is lower-case letters, digits, "_" and "." (starting with a letter), at most 64 characters');
const filterValue = z.string().max(MAX_SAVED_VIEW_VALUE_LENGTH);

/**
 * The list screen's URL search params, as they are (the console reads them back into its filter
 * bar). A param given more than once is a list of its values, in order.
 */
export const savedViewFilters = z
  .record(filterKey, z.union([filterValue, z.array(filterValue).min(1).max(MAX_SAVED_VIEW_REPEATS)]))
  .refine((f) => Object.keys(f).length <= MAX_SAVED_VIEW_FILTERS, { message: `at most ${MAX_SAVED_VIEW_FILTERS} filters` })
  .describe("the list screen's URL search params: name to value (or values, for a param given more than once)");
export type SavedViewFilters = z.infer<typeof savedViewFilters>;

export const savedView = z.object({
  id: z.string(),
  list: savedViewList,
  name: z.string(),
  filters: savedViewFilters,
  shared: z.boolean().describe('listed to everyone who may read; otherwise only to its owner'),
  owner_id: z.string().describe('the user who made it'),
  owner_name: z.string().describe("that user's display name now"),
  mine: z.boolean().describe("the caller's own view"),
  created_at: timestamp,
  updated_at: timestamp,
});
export type SavedView = z.infer<typeof savedView>;

export const viewList = defineMethod({
  name: 'view.list',
  summary: "Lists the caller's saved views and the views others shared, for one list or all.",
  description: "The caller's own views first (private and shared), then others' shared views; each group by name.",
  params: z.strictObject({ list: savedViewList.optional().describe('default: every list') }),
  result: z.object({ items: z.array(savedView) }),
  errors: [],
  scope: 'read',
  mutating: false,
});

export const viewCreate = defineMethod({
  name: 'view.create',
  summary: 'Saves a named set of filters for a list, private (the default) or shared.',
  description: `A name is unique per person and list, ignoring case (INVALID_PARAMS names the clash); a person keeps at most ${MAX_SAVED_VIEWS_PER_LIST} views per list.`,
  params: z.strictObject({
    list: savedViewList,
    name: viewName,
    filters: savedViewFilters,
    shared: z.boolean().optional().describe('default false'),
    idempotency_key: idempotencyKey,
  }),
  result: z.object({ view: savedView }),
  errors: [],
  scope: 'read',
  mutating: true,
});

export const viewUpdate = defineMethod({
  name: 'view.update',
  summary: "Renames a saved view, shares or unshares it, or replaces its filters.",
  description: "The owner may change their view; an admin (users:admin) may change a shared one. Someone else's private view is NOT_FOUND; someone else's shared view is FORBIDDEN to a non-admin.",
  params: z
    .strictObject({
      view_id: viewId,
      name: viewName.optional(),
      filters: savedViewFilters.optional(),
      shared: z.boolean().optional(),
      idempotency_key: idempotencyKey,
    })
    .refine((p) => p.name !== undefined || p.filters !== undefined || p.shared !== undefined, { message: 'give at least one of name, filters and shared' }),
  result: z.object({ view: savedView }),
  errors: ['NOT_FOUND'],
  scope: 'read',
  mutating: true,
});

export const viewDelete = defineMethod({
  name: 'view.delete',
  summary: 'Deletes a saved view.',
  description: "The owner may delete their view; an admin (users:admin) may delete a shared one. Someone else's private view is NOT_FOUND.",
  params: z.strictObject({ view_id: viewId, idempotency_key: idempotencyKey }),
  result: z.object({ view_id: z.string(), deleted: z.literal(true) }),
  errors: ['NOT_FOUND'],
  scope: 'read',
  mutating: true,
});
