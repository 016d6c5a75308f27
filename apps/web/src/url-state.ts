/**
 * Screen state that belongs in the URL (filters, selection, time range), so a pasted link opens
 * the same view. Empty values are dropped to keep links short.
 */
import { useCallback, useEffect, useState, type Dispatch, type SetStateAction } from 'react';
import { useSearchParams } from 'react-router';

export type UrlPatch = Record<string, string | number | boolean | null | undefined>;

/**
 * The router hands `prev` from the render its setter came from, and applies a change later (in a
 * transition): quick changes (pick a time range, a state and a sort; or a range, then a row) would
 * each start from params the router has since been asked to replace, and drop the change before.
 * So the changes asked for and not yet shown are chained: one made from any params along the chain
 * builds on its last link. The chain ends when the router shows that link, or params off the chain
 * (a link, back).
 */
export class UrlChangeChain {
  /** The params the chain started from and every link the router may show before the last. */
  private passed = new Set<string>();
  private last: string | null = null;

  /** The params a change should start from, when the router's are `prev`. */
  base(prev: URLSearchParams): URLSearchParams | string {
    const p = prev.toString();
    return this.last !== null && (this.passed.has(p) || this.last === p) ? this.last : prev;
  }

  /** A change from `prev` was asked for, giving `next`. */
  asked(prev: URLSearchParams, next: URLSearchParams): void {
    const p = prev.toString();
    if (this.last === null || !(this.passed.has(p) || this.last === p)) this.passed = new Set([p]);
    else this.passed.add(this.last);
    this.last = next.toString();
  }

  /** The router shows `params`. */
  shown(params: URLSearchParams): void {
    const s = params.toString();
    if (this.last !== null && (s === this.last || !this.passed.has(s))) {
      this.last = null;
      this.passed = new Set();
    }
  }
}

const chain = new UrlChangeChain();

export function useUrlState(): [URLSearchParams, (patch: UrlPatch, opts?: { push?: boolean }) => void] {
  const [params, setParams] = useSearchParams();
  useEffect(() => chain.shown(params), [params]);
  const update = useCallback(
    (patch: UrlPatch, opts: { push?: boolean } = {}) => {
      setParams(
        (prev) => {
          const next = applyPatch(chain.base(prev), patch);
          chain.asked(prev, next);
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
