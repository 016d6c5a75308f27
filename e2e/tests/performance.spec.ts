import { expect, test } from '../fixtures';

const ROWS = 5000;

test('the events table with 5,000 loaded rows scrolls without long tasks', async ({ signedIn: page, server }) => {
  test.setTimeout(180_000);
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

  await scroller.evaluate((el) => el.scrollTo({ top: 0 }));
  await page.waitForTimeout(300);
  const result = await scroller.evaluate(async (el) => {
    const longTasks: number[] = [];
    const observer = new PerformanceObserver((list) => longTasks.push(...list.getEntries().map((e) => e.duration)));
    observer.observe({ type: 'longtask' });
    const frames: number[] = [];
    let last = performance.now();
    // A fast, steady scroll from top to bottom and back: 800 px per frame.
    const step = 800;
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
      longTasks,
      longest: longTasks.length ? Math.max(...longTasks) : 0,
      p95Frame: frames[Math.floor(frames.length * 0.95)]!,
      maxFrame: frames.at(-1)!,
    };
  });
  console.log(
    `Scroll over ${total} loaded rows: ${result.frames} frames, long tasks > 50 ms: ${result.longTasks.length}` +
      ` (longest ${result.longest.toFixed(0)} ms), p95 frame ${result.p95Frame.toFixed(1)} ms, max frame ${result.maxFrame.toFixed(1)} ms`,
  );
  expect(result.longTasks, 'long tasks during scrolling (ms)').toEqual([]);
});
