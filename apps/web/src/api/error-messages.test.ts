import { describe, expect, it } from 'vitest';
import { errorCodes } from '@switchboard/contract';
import { ApiError, NETWORK_ERROR } from './client';
import { explainError } from './error-messages';

describe('explainError', () => {
  it('has words for every server error code', () => {
    for (const code of errorCodes) {
      const e = explainError(new ApiError(code, 'raw message'));
      expect(e.title, code).not.toBe('The request failed');
      expect(e.hint.length, code).toBeGreaterThan(10);
    }
  });
  it('keeps the code and correlation id for reporting', () => {
    const e = explainError(new ApiError('INTERNAL', 'boom', { correlationId: 'c-1', retryable: true }));
    expect(e).toMatchObject({ code: 'INTERNAL', correlationId: 'c-1', retryable: true, title: 'The server failed unexpectedly' });
  });
  it('explains network failures and unknown codes', () => {
    expect(explainError(new ApiError(NETWORK_ERROR, 'x')).title).toBe('The server cannot be reached');
    expect(explainError(new ApiError('SOMETHING_NEW', 'x')).title).toBe('The request failed');
    expect(explainError(new Error('bad')).code).toBe('CLIENT_ERROR');
  });
  it('names the role and scope a refused call needed, and the caller\'s role', () => {
    const refused = explainError(new ApiError('FORBIDDEN', 'Forbidden', { details: { required_scope: 'events:redrive', role: 'reviewer', needs_role: 'operator' } }));
    expect(refused.title).toBe('This needs the operator role (scope events:redrive)');
    expect(refused.hint).toContain('You are signed in as reviewer');
    const narrowed = explainError(new ApiError('FORBIDDEN', 'Forbidden', { details: { required_scope: 'events:publish', role: 'admin', needs_role: 'operator' } }));
    expect(narrowed.hint).toContain('this token is narrowed');
  });
});
