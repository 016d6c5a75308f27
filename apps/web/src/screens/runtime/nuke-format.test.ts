import { describe, expect, it } from 'vitest';
import type { NukeResult } from '../../api/runtime';
import { armsReset, previewChanges } from './nuke-format';

const runtime = { name: 'support-desk', fingerprint: 'sha256:746ae44b29022c1b18e3b344d8b85e8d' };

describe('armsReset', () => {
  it('arms on the exact runtime name or a fingerprint prefix of at least 8 hex characters', () => {
    expect(armsReset('support-desk', runtime)).toBe(true);
    expect(armsReset('  support-desk ', runtime)).toBe(true);
    expect(armsReset('sha256:746ae44b', runtime)).toBe(true);
    expect(armsReset('746ae44b29', runtime)).toBe(true);
    expect(armsReset('746AE44B', runtime)).toBe(true);
  });
  it('stays disarmed for anything else', () => {
    for (const typed of ['', '   ', 'support', 'Support-Desk', 'sha256:746ae44', '746ae44', 'sha256:00000000', 'sha256:', '746ae44b-']) {
      expect(armsReset(typed, runtime), typed).toBe(false);
    }
  });
});

function result(remove: Record<string, number>, stop: number): NukeResult {
  return {
    plan: { plan_hash: 'h', remove, reset: { agents: 3 }, containers_to_stop: { count: stop } },
    quiescence: {},
    cleanup: {},
    containers: {},
    dry_run: true,
    ok: true,
    operation_name: 'runtime.nuke.dry_run',
    partial_failure: false,
    status: 'dry_run',
  };
}

describe('previewChanges', () => {
  it('lists the counts that moved between two previews, and nothing else', () => {
    const changes = previewChanges(result({ events: 3, runs: 1, logs: 0 }, 1), result({ events: 5, runs: 1, turns: 2 }, 2));
    expect(changes).toEqual([
      { what: 'remove events', before: 3, after: 5 },
      { what: 'remove turns', before: 0, after: 2 },
      { what: 'containers to stop', before: 1, after: 2 },
    ]);
    expect(previewChanges(result({ events: 3 }, 1), result({ events: 3 }, 1))).toEqual([]);
  });
});
