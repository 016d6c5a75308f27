import type { InputHTMLAttributes } from 'react';
import { useUrlDraft } from '../url-state';

type Props = Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'checked' | 'onChange'> & {
  /** The value the URL holds. */
  checked: boolean;
  onCheckedChange: (checked: boolean) => void;
};

/**
 * A checkbox whose value lives in the URL. The router applies a search-param change in a
 * transition, so a plain controlled checkbox snaps back to the old URL value for a frame after
 * the click; under load that frame is long enough for a second click or a test to read the old
 * state. The box shows the clicked value at once and follows the URL whenever the URL moves.
 */
export function UrlCheckbox({ checked, onCheckedChange, ...rest }: Props) {
  const [shown, setShown] = useUrlDraft(checked);
  return (
    <input
      {...rest}
      type="checkbox"
      checked={shown}
      onChange={(e) => {
        setShown(e.target.checked);
        onCheckedChange(e.target.checked);
      }}
    />
  );
}
