import { describe, expect, it } from 'vitest';
import { SIGN_IN_ERROR_CODES } from '@switchboard/contract/sign-in';
import { signInErrorMessage, signInErrorMessages } from './sign-in-errors';

describe('signInErrorMessage', () => {
  it('words every code the server sends', () => {
    for (const code of SIGN_IN_ERROR_CODES) expect(signInErrorMessage(code)).toBe(signInErrorMessages[code]);
  });

  it('words an unknown or crafted code as a failed sign-in, never echoing it', () => {
    expect(signInErrorMessage('call 555-0100 to unlock your account')).toBe(signInErrorMessages.failed);
    expect(signInErrorMessage('toString')).toBe(signInErrorMessages.failed);
    expect(signInErrorMessage(null)).toBeNull();
  });
});
