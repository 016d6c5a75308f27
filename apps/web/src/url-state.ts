/**
 * Screen state that belongs in the URL (filters, selection, time range), so a pasted link opens
 * the same view. Empty values are dropped to keep links short.
 */
import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

export type UrlPatch = Record<string, string | number | boolean | null | undefined>;

export function useUrlState(): [URLSearchParams, (patch: UrlPatch, opts?: { push?: boolean }) => void] {
  const [params, setParams] = useSearchParams();
  const update = useCallback(
    (patch: UrlPatch, opts: { push?: boolean } = {}) => {
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          for (const [key, value] of Object.entries(patch)) {
            if (value === null || value === undefined || value === '' || value === false) next.delete(key);
            else next.set(key, value === true ? '1' : String(value));
          }
          return next;
        },
        { replace: !opts.push },
      );
    },
    [setParams],
  );
  return [params, update];
}

/** Builds a link that keeps the current params and applies a patch (for row links). */
export function withParams(current: URLSearchParams, patch: UrlPatch): string {
  const next = new URLSearchParams(current);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || value === undefined || value === '' || value === false) next.delete(key);
    else next.set(key, value === true ? '1' : String(value));
  }
  const s = next.toString();
  return s ? `?${s}` : '?';
}

/** The query string of only these keys of `params`, in a fixed order: a stable dependency for memos. */
export function onlyKeys(params: URLSearchParams, keys: readonly string[]): string {
  const picked = new URLSearchParams();
  for (const key of keys) {
    const value = params.get(key);
    if (value !== null) picked.set(key, value);
  }
  return picked.toString();
}
