/** The coalescing helper behind group commit, ingress and completion: one batch per turn, each alone after a failure. */
import { expect, test } from 'vitest';
import { Coalescer } from '../src/coalescer';

interface Item {
  value: number;
  resolve: (answer: string) => void;
  reject: (error: unknown) => void;
}

function harness(options: { failWhen?: (batch: number[]) => Error | undefined; splitAfter?: (error: unknown) => boolean; maxBatch?: number; parallel?: number } = {}) {
  const flushed: number[][] = [];
  let active = 0;
  let mostActive = 0;
  const coalescer = new Coalescer<Item>({
    flush: async (batch) => {
      active++;
      mostActive = Math.max(mostActive, active);
      flushed.push(batch.map((i) => i.value));
      await new Promise<void>((resolve) => setImmediate(resolve));
      active--;
      const error = options.failWhen?.(batch.map((i) => i.value));
      if (error) throw error;
      for (const item of batch) item.resolve(`done ${item.value}`);
    },
    fail: (item, error) => item.reject(error),
    splitAfter: options.splitAfter,
    maxBatch: options.maxBatch,
    parallel: options.parallel,
  });
  const add = (value: number) => new Promise<string>((resolve, reject) => coalescer.add({ value, resolve, reject }));
  return { add, flushed, mostActive: () => mostActive };
}

test('items added in one turn flush as one batch; a later turn makes the next', async () => {
  const h = harness();
  const first = await Promise.all([h.add(1), h.add(2), h.add(3)]);
  expect(first).toEqual(['done 1', 'done 2', 'done 3']);
  await h.add(4);
  expect(h.flushed).toEqual([[1, 2, 3], [4]]);
});

test('a failed batch runs each item alone, and only the failing one gets the error', async () => {
  const bad = new Error('2 is refused');
  const h = harness({ failWhen: (batch) => (batch.includes(2) ? bad : undefined) });
  const results = await Promise.allSettled([h.add(1), h.add(2), h.add(3)]);
  expect(results).toEqual([
    { status: 'fulfilled', value: 'done 1' },
    { status: 'rejected', reason: bad },
    { status: 'fulfilled', value: 'done 3' },
  ]);
  expect(h.flushed).toEqual([[1, 2, 3], [1], [2], [3]]);
});

test('a failure splitAfter declines fails every item with the batch error, none runs again', async () => {
  const lost = new Error('commit answer lost');
  const h = harness({ failWhen: () => lost, splitAfter: () => false });
  const results = await Promise.allSettled([h.add(1), h.add(2)]);
  expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  expect(h.flushed).toEqual([[1, 2]]);
});

test('maxBatch bounds a batch and parallel bounds the batches flushing at once', async () => {
  const h = harness({ maxBatch: 2, parallel: 1 });
  await Promise.all([1, 2, 3, 4, 5].map((v) => h.add(v)));
  expect(h.flushed).toEqual([[1, 2], [3, 4], [5]]);
  expect(h.mostActive()).toBe(1);
});
