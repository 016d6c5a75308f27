/**
 * A labelled select whose value lives in one URL parameter; choosing the default removes the
 * parameter, so the plain URL means the default view.
 */
import { useId } from 'react';
import type { UrlPatch } from '../url-state';

export function UrlSelect({
  label,
  param,
  value,
  defaultValue,
  choices,
  update,
  extraPatch,
  testId,
}: {
  label: string;
  param: string;
  value: string;
  defaultValue: string;
  choices: readonly { value: string; label: string }[];
  update: (patch: UrlPatch) => void;
  /** Also applied on a change (e.g. closing the selected record, which may no longer be listed). */
  extraPatch?: UrlPatch;
  testId?: string;
}) {
  const id = useId();
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => update({ ...extraPatch, [param]: e.target.value === defaultValue ? null : e.target.value })} data-testid={testId}>
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {c.label}
          </option>
        ))}
      </select>
    </div>
  );
}
