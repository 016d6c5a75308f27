import { expect, it } from 'vitest';
import { BATCH_TARGET_MS, BatchSizer } from './batch-sizer';

it('halves the batch while batches take longer than the target, down to one, and grows it back to the setting', () => {
  const sizer = new BatchSizer(200);
  expect(sizer.size).toBe(200);
  const sizes: number[] = [];
  for (let i = 0; i < 9; i++) {
    sizer.took(BATCH_TARGET_MS * 3);
    sizes.push(sizer.size);
  }
  expect(sizes).toEqual([100, 50, 25, 12, 6, 3, 1, 1, 1]);
  sizer.took(BATCH_TARGET_MS * 0.75); // between half the target and the target: kept
  expect(sizer.size).toBe(1);
  const grown: number[] = [];
  for (let i = 0; i < 9; i++) {
    sizer.took(BATCH_TARGET_MS / 4);
    grown.push(sizer.size);
  }
  expect(grown).toEqual([2, 4, 8, 16, 32, 64, 128, 200, 200]);
});

it('keeps the setting where batches are not bounded by time (writers that run concurrently)', () => {
  const sizer = new BatchSizer(200, false);
  for (let i = 0; i < 5; i++) sizer.took(BATCH_TARGET_MS * 10);
  expect(sizer.size).toBe(200);
});
