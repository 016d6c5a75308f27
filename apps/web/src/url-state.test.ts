import { describe, expect, it } from 'vitest';
import { UrlChangeChain } from './url-state';

const q = (s: string) => new URLSearchParams(s);

/** One change as useUrlState makes it: from the router's `prev`, with one key set. */
function change(chain: UrlChangeChain, prev: string, key: string, value: string): string {
  const next = new URLSearchParams(chain.base(q(prev)));
  next.set(key, value);
  chain.asked(q(prev), next);
  return next.toString();
}

describe('UrlChangeChain', () => {
  it('three quick changes from the same old params keep all three', () => {
    const chain = new UrlChangeChain();
    change(chain, '', 'window', '168');
    change(chain, '', 'state', 'all');
    expect(change(chain, '', 'sort', 'count')).toBe('window=168&state=all&sort=count');
  });

  it('a change from params the router showed midway still builds on the last one asked', () => {
    // The failure seen in CI: the router showed the first change, and the third change's setter came
    // from that render, while the second was still on its way; the second was dropped.
    const chain = new UrlChangeChain();
    const first = change(chain, '', 'window', '168');
    change(chain, '', 'state', 'all');
    chain.shown(q(first));
    expect(change(chain, first, 'sort', 'count')).toBe('window=168&state=all&sort=count');
  });

  it('ends when the router shows the last change: a later change starts from what it shows', () => {
    const chain = new UrlChangeChain();
    const last = change(chain, '', 'window', '168');
    chain.shown(q(last));
    expect(change(chain, last, 'sort', 'count')).toBe('window=168&sort=count');
    chain.shown(q('window=168&sort=count'));
    expect(change(chain, 'state=all', 'sort', 'count')).toBe('state=all&sort=count');
  });

  it('ends when the router shows params off the chain (a link, back): their changes start from them', () => {
    const chain = new UrlChangeChain();
    change(chain, '', 'window', '168');
    chain.shown(q('event=evt_1'));
    expect(change(chain, 'event=evt_1', 'state', 'all')).toBe('event=evt_1&state=all');
  });

  it('a change from params off the chain, before the router showed them, starts a new chain', () => {
    const chain = new UrlChangeChain();
    change(chain, '', 'window', '168');
    expect(change(chain, 'event=evt_1', 'state', 'all')).toBe('event=evt_1&state=all');
    expect(change(chain, 'event=evt_1', 'sort', 'count')).toBe('event=evt_1&state=all&sort=count');
  });
});
