import { describe, expect, it } from 'vitest';
import { sourcePath } from './SourceLink';

describe('sourcePath', () => {
  it('links the kind:id sources the runtime writes to what they name', () => {
    expect(sourcePath('node:pay-refund')).toBe('/events?subscriber_id=pay-refund');
    expect(sourcePath('agent:triage-agent')).toBe('/agents/triage-agent');
    expect(sourcePath('mailbox:mbx_1')).toBe('/mailbox/mbx_1');
    expect(sourcePath('replay:op_1')).toBe('/runtime?operation=op_1#operations');
  });

  it('leaves other sources as text', () => {
    expect(sourcePath('api')).toBeUndefined();
    expect(sourcePath('node:')).toBeUndefined();
    expect(sourcePath(':x')).toBeUndefined();
    expect(sourcePath('webhook:abc')).toBeUndefined();
  });
});
