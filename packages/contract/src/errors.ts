/**
 * The one registry of error codes (v1-decisions, Errors). Clients branch on the string `code`;
 * the numeric JSON-RPC codes may change, the strings may not.
 */
export const errorRegistry = {
  PARSE_ERROR: { rpcCode: -32700, retryable: false, httpStatus: 200, message: 'Parse error: the body is not valid JSON' },
  INVALID_REQUEST: { rpcCode: -32600, retryable: false, httpStatus: 200, message: 'Invalid Request' },
  METHOD_NOT_FOUND: { rpcCode: -32601, retryable: false, httpStatus: 200, message: 'Method not found' },
  INVALID_PARAMS: { rpcCode: -32602, retryable: false, httpStatus: 200, message: 'Invalid params' },
  INTERNAL: { rpcCode: -32603, retryable: true, httpStatus: 200, message: 'Internal error' },
  UNAUTHENTICATED: { rpcCode: -32001, retryable: false, httpStatus: 401, message: 'Missing or invalid access token' },
  FORBIDDEN: {
    rpcCode: -32003,
    retryable: false,
    httpStatus: 200,
    message: "The caller's role or token does not grant the scope this method needs",
  },
  NOT_FOUND: { rpcCode: -32004, retryable: false, httpStatus: 200, message: 'Not found' },
  INVALID_CURSOR: { rpcCode: -32602, retryable: false, httpStatus: 200, message: 'Invalid cursor' },
  IDEMPOTENCY_CONFLICT: { rpcCode: -32009, retryable: false, httpStatus: 200, message: 'Idempotency key reused with a different body' },
  IDEMPOTENCY_IN_PROGRESS: { rpcCode: -32010, retryable: true, httpStatus: 200, message: 'A call with this idempotency key is still running' },
  BUNDLE_MISMATCH: { rpcCode: -32020, retryable: false, httpStatus: 200, message: 'Bundle fingerprint does not match the boot bundle' },
  UNKNOWN_EVENT: { rpcCode: -32021, retryable: false, httpStatus: 200, message: 'Event name is not in the bundle event catalog' },
  MAILBOX_NOT_PENDING: { rpcCode: -32030, retryable: false, httpStatus: 200, message: 'Mailbox item is no longer pending' },
  STALE_DECISION_SHEET: { rpcCode: -32031, retryable: false, httpStatus: 200, message: 'The entity changed since the decision sheet was read' },
  GATE_OVERRIDE_REQUIRED: {
    rpcCode: -32032,
    retryable: false,
    httpStatus: 200,
    message: "Some of the entity's gates fail; approving anyway needs an override note",
  },
  ALREADY_APPROVED: {
    rpcCode: -32033,
    retryable: false,
    httpStatus: 200,
    message: 'This person already approved this item; its type needs approvals from different people',
  },
  RESET_IN_PROGRESS: { rpcCode: -32040, retryable: true, httpStatus: 200, message: 'A runtime reset is in progress' },
  PLAN_STALE: { rpcCode: -32041, retryable: false, httpStatus: 200, message: 'Runtime state changed since the reset plan was previewed' },
  DESTINATION_IN_USE: {
    rpcCode: -32060,
    retryable: false,
    httpStatus: 200,
    message: 'Alert rules still send to this destination; change or delete them first',
  },
  NOTICE_NOT_FAILED: { rpcCode: -32061, retryable: false, httpStatus: 200, message: 'Only a failed notice can be resent' },
  RATE_LIMITED: { rpcCode: -32029, retryable: true, httpStatus: 429, message: 'Rate limited' },
  PAYLOAD_TOO_LARGE: { rpcCode: -32013, retryable: false, httpStatus: 413, message: 'Request body is over the size limit' },
  STORE_BUSY: { rpcCode: -32050, retryable: true, httpStatus: 200, message: 'The store is busy with another writer; retry shortly' },
  STORE_UNAVAILABLE: { rpcCode: -32051, retryable: true, httpStatus: 200, message: 'The database connection was lost or refused; retry shortly' },
} as const satisfies Record<string, { rpcCode: number; retryable: boolean; httpStatus: number; message: string }>;

export type ErrorCode = keyof typeof errorRegistry;
export const errorCodes = Object.keys(errorRegistry) as ErrorCode[];

/** Thrown anywhere below the transport; the transport turns it into a JSON-RPC error object. */
export class RpcError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  constructor(code: ErrorCode, message?: string, details: Record<string, unknown> = {}) {
    super(message ?? errorRegistry[code].message);
    this.name = 'RpcError';
    this.code = code;
    this.details = details;
  }
  get retryable(): boolean {
    return errorRegistry[this.code].retryable;
  }
}

export interface RpcErrorData {
  code: ErrorCode | (string & {});
  details: Record<string, unknown>;
  retryable: boolean;
  correlation_id: string;
}

export interface RpcErrorObject {
  code: number;
  message: string;
  data: RpcErrorData;
}

export function toErrorObject(err: RpcError, correlationId: string): RpcErrorObject {
  const entry = errorRegistry[err.code];
  return {
    code: entry.rpcCode,
    message: err.message,
    data: { code: err.code, details: err.details, retryable: entry.retryable, correlation_id: correlationId },
  };
}

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(errorRegistry, value);
}
