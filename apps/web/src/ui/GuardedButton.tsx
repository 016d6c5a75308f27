/**
 * A button for an action the signed-in role may not be allowed to take. When it is not, the
 * button stays where it is (so the screen reads the same for everyone) but is disabled and says
 * why, in its text and its title: "needs operator".
 */
import type { ButtonHTMLAttributes } from 'react';
import type { Scope } from '@switchboard/contract/roles';
import { useCan, type ConsoleAction } from '../api/access';
import './GuardedButton.css';

export function GuardedButton({
  action,
  disabled,
  title,
  children,
  type = 'button',
  ...rest
}: ButtonHTMLAttributes<HTMLButtonElement> & { action: Scope | ConsoleAction }) {
  const can = useCan(action);
  return (
    <button {...rest} type={type} disabled={disabled || !can.allowed} title={can.allowed ? title : can.reason}>
      {children}
      {!can.allowed && (
        <span className="needs-role" data-testid="needs-role">
          {can.reason}
        </span>
      )}
    </button>
  );
}
