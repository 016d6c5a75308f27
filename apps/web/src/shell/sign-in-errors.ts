import type { SignInErrorCode } from '@switchboard/contract';

/** Why a single sign-on came back refused, worded here (the URL carries only the code). */
export const signInErrorMessages: Record<SignInErrorCode, string> = {
  not_allowed: 'Your single sign-on account is not allowed to use Switchboard. Ask an administrator to add you to the group that grants access.',
  no_role: 'Your single sign-on account has no Switchboard role: none of your groups maps to one. Ask an administrator to give you a role.',
  user_disabled: 'Your Switchboard account is disabled. Ask an administrator to enable it.',
  last_admin:
    'Your provider no longer makes you an admin, but you are the last admin of Switchboard. Another admin must be appointed first (sign in with an admin token to do it).',
  provider_refused: 'The sign-in was cancelled or refused at the single sign-on provider. Try again.',
  expired: 'The sign-in took too long or was started in another tab. Try again.',
  failed: 'Single sign-on could not be completed: the provider’s answer was not accepted. Try again; if it keeps failing, tell an administrator.',
};

export function signInErrorMessage(code: string | null): string | null {
  if (!code) return null;
  return Object.hasOwn(signInErrorMessages, code) ? signInErrorMessages[code as SignInErrorCode] : signInErrorMessages.failed;
}
