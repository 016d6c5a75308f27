import { describe, expect, it } from 'vitest';
import { describeTrigger, formatSeconds, noticeRecordPath, sameOriginPath } from './alert-format';

describe('formatSeconds', () => {
  it('reads as at most two units', () => {
    expect(formatSeconds(45)).toBe('45 s');
    expect(formatSeconds(90)).toBe('1 min 30 s');
    expect(formatSeconds(3600)).toBe('1 h');
    expect(formatSeconds(90_061)).toBe('1 d 1 h');
    expect(formatSeconds(0)).toBe('0 s');
  });
});

describe('describeTrigger', () => {
  it('says what each trigger watches, with its numbers', () => {
    expect(describeTrigger({ trigger: 'incident.opened' })).toBe('An incident opens');
    expect(describeTrigger({ trigger: 'incident.regressed', min_level: 'error' })).toBe('A resolved incident comes back (error level)');
    expect(describeTrigger({ trigger: 'incident.occurrences', threshold: 1000, window_s: 300 })).toBe('An incident occurs 1,000 times within 5 min');
    expect(describeTrigger({ trigger: 'mailbox.sla', mailbox_type: 'refund' })).toBe('A “refund” mailbox item waits past its SLA');
    expect(describeTrigger({ trigger: 'dead_letters.rate', per_minute: 5 })).toBe('5 or more dead letters in a minute');
    expect(describeTrigger({ trigger: 'queue.oldest_pending', older_than_s: 600 })).toBe('The oldest pending delivery is older than 10 min');
  });
});

describe('noticeRecordPath', () => {
  it('opens the subject through the console’s own paths', () => {
    expect(noticeRecordPath({ subject_type: 'incident', subject_id: 'inc_1', link: '/somewhere-else' })).toBe('/incidents?state=all&selected=inc_1');
    expect(noticeRecordPath({ subject_type: 'mailbox_item', subject_id: 'mbx_1' })).toBe('/mailbox/mbx_1');
    expect(noticeRecordPath({ subject_type: 'server', subject_id: 'node-a' })).toBe('/runtime#servers');
  });
  it('uses a server link only when it stays on this origin', () => {
    expect(noticeRecordPath({ subject_type: 'reset', subject_id: 'rst_1', link: '/runtime' })).toBe('/runtime');
    expect(sameOriginPath('//evil.example/x')).toBeUndefined();
    expect(sameOriginPath('javascript:alert(1)')).toBeUndefined();
    expect(sameOriginPath('https://evil.example')).toBeUndefined();
  });
});
