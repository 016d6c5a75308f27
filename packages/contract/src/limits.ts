/**
 * Limits of the contract that clients show or enforce before calling. Free of zod, so the console
 * can import values from here (it imports only types from the rest of the contract).
 */
export const DEFAULT_OPERATION_RATE = 20;
export const MAX_OPERATION_RATE = 1000;
/** One operation acts on at most this many items; a wider selection must be narrowed. */
export const MAX_OPERATION_ITEMS = 100_000;
