/**
 * Screen state that belongs in the URL (filters, selection, time range), so a pasted link opens
 * the same view. Empty values are dropped to keep links short.
 */
import { useCallback, useEffect } from 'react';
import { useSearchParams } from 'react-router';

export type UrlPatch = Record<string, string | number | boolean | null | undefined>;

/**
 * The router hands `prev` from the last render, and applies a change later (in a transition): two
 * quick changes (pick a time range, then click a row) would each start from the same old params and
 * the second would drop the first. So the last change asked for is remembered until the router
 * shows it, and a change made meanwhile builds on it.
 */
let lastAsked: { from: string; to: string } | null = null;

export function useUrlState(): [URLSearchParams, (patch: UrlPatch, opts?: { push?: boolean }) => void] {
  const [params, setParams] = useSearchParams();
  useEffect(() => {
    if (lastAsked?.to === params.toString()) lastAsked = null;
  }, [params]);
  const update = useCallback(
    (patch: UrlPatch, opts: { push?: boolean } = {}) => {
      setParams(
        (prev) => {
          const notYetShown = lastAsked !== null && lastAsked.from === prev.toString();
          const next = new URLSearchParams(notYetShown ? lastAsked!.to : prev);
          for (const [key, value] of Object.entries(patch)) {
            if (value === null || value === undefined || value === '' || value === false) next.delete(key);
            else next.set(key, value === true ? '1' : String(value));
          }
          lastAsked = { from: prev.toString(), to: next.toString() };
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
