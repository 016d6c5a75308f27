/**
 * Screen state that belongs in the URL (filters, selection, time range), so a pasted link opens
 * the same view. Empty values are dropped to keep links short.
 */
import { useCallback, useEffect, useState, type Dispatch, type SetStateAction } from 'react';
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
          const next = applyPatch(notYetShown ? lastAsked!.to : prev, patch);
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

/** The params with a patch applied: empty values and false remove a key, true is written as 1. */
function applyPatch(base: URLSearchParams | string, patch: UrlPatch): URLSearchParams {
  const next = new URLSearchParams(base);
  for (const [key, value] of Object.entries(patch)) {
    if (value === null || value === undefined || value === '' || value === false) next.delete(key);
    else next.set(key, value === true ? '1' : String(value));
  }
  return next;
}

/** Builds a link that keeps the current params and applies a patch (for row links). */
export function withParams(current: URLSearchParams, patch: UrlPatch): string {
  const s = applyPatch(current, patch).toString();
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


/**
 * A form's local edit of URL-held values (typed text that settles before it is written back). When
 * the URL changes underneath (a link, back, "go to id") the draft follows it in the same render: a
 * reset in an effect left one commit where the old draft differed from the new URL, and a debounce
 * armed then could write the old values back on a slow machine.
 */
export function useUrlDraft<T>(committed: T): [T, Dispatch<SetStateAction<T>>] {
  const key = JSON.stringify(committed);
  const [draft, setDraft] = useState(committed);
  const [draftOf, setDraftOf] = useState(key);
  if (draftOf !== key) {
    setDraftOf(key);
    setDraft(committed);
  }
  return [draft, setDraft];
}
