/**
 * Limits of the contract that clients show or enforce before calling. Free of zod, so the console
 * can import values from here (it imports only types from the rest of the contract).
 */
export const DEFAULT_OPERATION_RATE = 20;
export const MAX_OPERATION_RATE = 1000;
/** One operation acts on at most this many items; a wider selection must be narrowed. */
export const MAX_OPERATION_ITEMS = 100_000;
/**
 * Longest entity id, in characters (code points, as zod's max counts them). PostgreSQL refuses a
 * btree index entry over 2,704 bytes, and entity ids are indexed (events by entity, the entities
 * themselves): 512 characters are at most 2,048 bytes of UTF-8, so an id either engine accepts
 * fits the other.
 */
export const MAX_ENTITY_ID_LENGTH = 512;

/** Saved views (view.*): what one view may hold, and how many one person keeps per list. */
export const SAVED_VIEW_LISTS = ['events', 'dead_letters', 'incidents', 'mailbox'] as const;
export const MAX_SAVED_VIEW_NAME_LENGTH = 80;
/** Filter members of one view: a list screen's URL search params. */
export const MAX_SAVED_VIEW_FILTERS = 32;
/** A filter's value, in characters; a repeated param holds up to MAX_SAVED_VIEW_REPEATS values. */
export const MAX_SAVED_VIEW_VALUE_LENGTH = 1000;
export const MAX_SAVED_VIEW_REPEATS = 20;
/** Views one person keeps per list: a menu, not an archive. */
export const MAX_SAVED_VIEWS_PER_LIST = 100;
/** A filter's name: a URL search param as the console writes them. */
export const SAVED_VIEW_FILTER_NAME = /^[a-z][a-z0-9_.]{0,63}$/;
