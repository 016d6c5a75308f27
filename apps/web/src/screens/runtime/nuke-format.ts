/** Pure helpers of the reset dialog: arming, summaries and what changed between two previews. */
import type { NukeResult } from '../../api/runtime';

/** Hex characters of the fingerprint a typed prefix must match, at least. */
export const FINGERPRINT_PREFIX_MIN = 8;

function fingerprintHex(value: string): string {
  return value.trim().toLowerCase().replace(/^sha256:/, '');
}

/** The reset button arms only when the operator typed the runtime's name or a long enough fingerprint prefix. */
export function armsReset(typed: string, runtime: { name: string; fingerprint: string }): boolean {
  const t = typed.trim();
  if (!t) return false;
  if (t === runtime.name) return true;
  const hex = fingerprintHex(t);
  return /^[0-9a-f]+$/.test(hex) && hex.length >= FINGERPRINT_PREFIX_MIN && fingerprintHex(runtime.fingerprint).startsWith(hex);
}

export function asCounts(value: unknown): Record<string, number> | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0 || !entries.every(([, v]) => typeof v === 'number')) return undefined;
  return Object.fromEntries(entries) as Record<string, number>;
}

export function planHash(result: NukeResult | undefined): string | undefined {
  const hash = result?.plan.plan_hash;
  return typeof hash === 'string' ? hash : undefined;
}

export interface PreviewChange {
  what: string;
  before: number;
  after: number;
}

/** Counts that differ between the preview the operator reviewed and a fresh one (for PLAN_STALE). */
export function previewChanges(before: NukeResult, after: NukeResult): PreviewChange[] {
  const changes: PreviewChange[] = [];
  const compare = (prefix: string, a: unknown, b: unknown) => {
    const ca = asCounts(a) ?? {};
    const cb = asCounts(b) ?? {};
    for (const key of new Set([...Object.keys(ca), ...Object.keys(cb)])) {
      if ((ca[key] ?? 0) !== (cb[key] ?? 0)) changes.push({ what: `${prefix}${key.replace(/_/g, ' ')}`, before: ca[key] ?? 0, after: cb[key] ?? 0 });
    }
  };
  compare('remove ', before.plan.remove, after.plan.remove);
  compare('reset ', before.plan.reset, after.plan.reset);
  const stopBefore = (before.plan.containers_to_stop as { count?: number } | undefined)?.count ?? 0;
  const stopAfter = (after.plan.containers_to_stop as { count?: number } | undefined)?.count ?? 0;
  if (stopBefore !== stopAfter) changes.push({ what: 'containers to stop', before: stopBefore, after: stopAfter });
  return changes;
}

export function total(counts: Record<string, number> | undefined): number {
  return counts ? Object.values(counts).reduce((a, b) => a + b, 0) : 0;
}
