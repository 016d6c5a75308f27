import { describe, expect, it } from 'vitest';
import type { NukeResult } from '../../api/runtime';
import { NUKE_DIALOG_OPENED, nukeFlow, type NukeAction, type NukeFlow } from './nuke-flow';

const preview = { plan: { plan_hash: 'sha256:a' }, status: 'dry_run' } as unknown as NukeResult;
const fresh = { plan: { plan_hash: 'sha256:b' }, status: 'dry_run' } as unknown as NukeResult;
const run = (...actions: NukeAction[]): NukeFlow => actions.reduce(nukeFlow, NUKE_DIALOG_OPENED);

describe('the reset dialog flow', () => {
  it('cannot continue before a preview, then walks preview → arm → apply → done', () => {
    expect(run({ type: 'continued' }).step).toBe('preview');
    const applying = run({ type: 'previewed', result: preview }, { type: 'continued' }, { type: 'typed', text: 'support-desk' }, { type: 'confirmed' });
    expect(applying).toMatchObject({ step: 'apply', preview, typed: 'support-desk', reason: '', reasonError: null, stale: null });
    expect(nukeFlow(applying, { type: 'applied', outcome: preview })).toEqual({ step: 'done', outcome: preview });
  });

  it('keeps what was typed when going back, and clears a reason error once the reason changes', () => {
    const missing = run({ type: 'previewed', result: preview }, { type: 'continued' }, { type: 'typed', text: 'x' }, { type: 'confirmed' }, { type: 'reasonMissing' });
    expect(missing).toMatchObject({ step: 'apply', reasonError: expect.stringMatching(/Say why/) });
    expect(nukeFlow(missing, { type: 'reasonChanged', text: 'cleanup' })).toMatchObject({ reason: 'cleanup', reasonError: null });
    expect(nukeFlow(missing, { type: 'back' })).toMatchObject({ step: 'arm', typed: 'x' });
  });

  it('a stale plan is replaced in place by the fresh preview: still armed, reason kept, asked again', () => {
    const stale = run(
      { type: 'previewed', result: preview },
      { type: 'continued' },
      { type: 'typed', text: 'x' },
      { type: 'confirmed' },
      { type: 'reasonChanged', text: 'why' },
      { type: 'staleSeen', stale: { fresh, changes: [] } },
      { type: 'freshTaken' },
    );
    expect(stale).toMatchObject({ step: 'apply', preview: fresh, reason: 'why', stale: null, reasonError: null });
  });

  it('opening again starts from a clean slate', () => {
    expect(run({ type: 'previewed', result: preview }, { type: 'continued' }, { type: 'opened' })).toEqual(NUKE_DIALOG_OPENED);
  });
});
