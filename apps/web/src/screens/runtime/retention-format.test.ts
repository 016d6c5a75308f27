import { describe, expect, it } from 'vitest';
import { formatBytes, keptFor, removedRows, totalRemoved } from './retention-format';

const zero = { runs: 0, events: 0, deliveries: 0, dead_letters: 0, turns: 0, conversations: 0, queued_publishes: 0, logs: 0, incident_hours: 0, audit: 0 };

describe('retention wording', () => {
  it('says forever for 0 days', () => {
    expect(keptFor(0)).toBe('forever');
    expect(keptFor(1)).toBe('1 day');
    expect(keptFor(400)).toBe('400 days');
  });

  it('sizes in powers of 1024', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(250 * 1024 * 1024)).toBe('250 MB');
    expect(formatBytes(3 * 1024 ** 3)).toBe('3.0 GB');
  });

  it('lists what a pass removed, biggest first, without zeros', () => {
    const removed = { ...zero, runs: 2, events: 9, logs: 4, dead_letters: 1 };
    expect(removedRows(removed)).toEqual([
      ['events', 9],
      ['log records', 4],
      ['runs', 2],
      ['dead letters', 1],
    ]);
    expect(totalRemoved(removed)).toBe(16);
    expect(removedRows(zero)).toEqual([]);
  });
});
