/**
 * The reset dialog's flow as a reducer over a union of steps: preview (a dry run) → arm (type the
 * runtime's name) → apply (a reason) → done. Each step holds exactly what it needs, so an apply can
 * never be shown without the preview it applies.
 */
import type { NukeResult } from '../../api/runtime';
import type { PreviewChange } from './nuke-format';

/** What the operator has entered so far; carried across the steps so Back loses nothing. */
interface Draft {
  preview?: NukeResult;
  typed: string;
  reason: string;
}
export interface StaleView {
  fresh: NukeResult;
  changes: PreviewChange[];
}

/** The dialog's flow: each step holds exactly what it needs (an apply step always has a reviewed preview). */
export type NukeFlow =
  | ({ step: 'preview' } & Draft)
  | ({ step: 'arm'; preview: NukeResult } & Draft)
  | ({ step: 'apply'; preview: NukeResult; reasonError: string | null; stale: StaleView | null } & Draft)
  | { step: 'done'; outcome: NukeResult };

export type NukeAction =
  | { type: 'opened' }
  | { type: 'previewed'; result: NukeResult }
  | { type: 'continued' }
  | { type: 'typed'; text: string }
  | { type: 'confirmed' }
  | { type: 'back' }
  | { type: 'reasonChanged'; text: string }
  | { type: 'reasonMissing' }
  | { type: 'staleSeen'; stale: StaleView }
  | { type: 'freshTaken' }
  | { type: 'applied'; outcome: NukeResult };

const REASON_MISSING = 'Say why you are resetting the runtime: it is recorded in the reset audit record.';
export const NUKE_DIALOG_OPENED: NukeFlow = { step: 'preview', typed: '', reason: '' };

function draftOf(flow: Exclude<NukeFlow, { step: 'done' }>): Draft {
  return { preview: flow.preview, typed: flow.typed, reason: flow.reason };
}

export function nukeFlow(flow: NukeFlow, action: NukeAction): NukeFlow {
  if (action.type === 'opened') return NUKE_DIALOG_OPENED;
  if (action.type === 'applied') return { step: 'done', outcome: action.outcome };
  if (flow.step === 'done') return flow;
  switch (action.type) {
    case 'previewed':
      return { ...flow, preview: action.result };
    case 'continued':
      return flow.step === 'preview' && flow.preview ? { ...draftOf(flow), step: 'arm', preview: flow.preview } : flow;
    case 'typed':
      return flow.step === 'arm' ? { ...flow, typed: action.text } : flow;
    case 'confirmed':
      return flow.step === 'arm' ? { ...draftOf(flow), step: 'apply', preview: flow.preview, reasonError: null, stale: null } : flow;
    case 'back':
      if (flow.step === 'apply') return { ...draftOf(flow), step: 'arm', preview: flow.preview };
      if (flow.step === 'arm') return { ...draftOf(flow), step: 'preview' };
      return flow;
    case 'reasonChanged':
      return flow.step === 'apply' ? { ...flow, reason: action.text, reasonError: null } : flow;
    case 'reasonMissing':
      return flow.step === 'apply' ? { ...flow, reasonError: REASON_MISSING } : flow;
    case 'staleSeen':
      return flow.step === 'apply' ? { ...flow, stale: action.stale } : flow;
    case 'freshTaken':
      // The fresh plan replaces the stale one in place: the operator stays armed, keeps the
      // reason, and is asked again to apply this plan (what changed stays listed above it).
      return flow.step === 'apply' && flow.stale ? { ...flow, preview: flow.stale.fresh, stale: null, reasonError: null } : flow;
  }
}
