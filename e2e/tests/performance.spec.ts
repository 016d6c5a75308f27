import { expect, sharedServer, test } from '../fixtures';
import { EventsPage } from '../pages/events-page';

const ROWS = 5000;
/**
 * How many times a plain scroller's per-frame CPU the table may cost. Thread CPU time still grows on
 * a busy or throttled machine, the ratio to the plain scroller measured beside it did not; about
 * double the ratio seen is the bound (docs/performance-notes.md).
 */
const MAX_COST_RATIO = 20;
/** A wait for one animation frame this long means the renderer stalled (a frame is due every ~16 ms). */
const FRAME_STALL_MS = 5_000;

test.describe.configure({ timeout: 330_000 });

test.beforeAll(async () => {
  // Seeded before the test takes the CPU lock, so other tests are held up only while it measures.
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

test('the events table with 5,000 loaded rows scrolls at a bounded multiple of a plain scroller\'s main-thread CPU', async ({ signedIn: page, cpuLock }) => {
  await page.goto('/events?event_name=survey.requested');
  const events = new EventsPage(page);
  const scroller = events.tableScroll;
  await expect(events.rows.first()).toBeVisible();
  const loaded = async () => Number((await events.loadedCount.innerText()).match(/^[\d,.\s\u202f]+/)![0].replace(/\D/g, ''));
  // Scrolling near the end loads the next page, until every row is loaded.
  for (let i = 0; i < 60 && (await loaded()) < ROWS; i++) {
    const before = await loaded();
    await scroller.evaluate((el) => el.scrollTo({ top: el.scrollHeight }));
    await expect.poll(loaded, { message: 'the next page to load' }).toBeGreaterThan(before);
  }
  const total = await loaded();
  expect(total).toBeGreaterThanOrEqual(ROWS);
  // Virtualised: the DOM holds a window of rows, not all of them.
  expect(await events.rows.count()).toBeLessThan(100);

  // One round: a fast, steady scroll from top to bottom and back (600 px per frame, about 36,000 px/s at 60 Hz).
  const measure = (target: typeof scroller) =>
    target.evaluate(async (el, stallMs) => {
      el.scrollTop = 0;
      await new Promise((r) => setTimeout(r, 300));
      const longTasks: number[] = [];
      const observer = new PerformanceObserver((list) => longTasks.push(...list.getEntries().map((e) => e.duration)));
      observer.observe({ type: 'longtask' });
      const frames: number[] = [];
      let last = performance.now();
      const step = 600;
      const down = Math.ceil((el.scrollHeight - el.clientHeight) / step);
      // A frame that does not come within a few seconds ends the round as stalled: a headless
      // renderer on a loaded machine once stopped running animation frames, and the round then
      // waited out the test's whole timeout (and the tests queued behind the CPU lock with it).
      let stalled = false;
      for (let i = 0; i < down * 2; i++) {
        el.scrollTop = i < down ? (i + 1) * step : el.scrollHeight - (i - down + 1) * step;
        const framed = await new Promise<boolean>((r) => {
          const timer = setTimeout(() => r(false), stallMs);
          requestAnimationFrame(() => {
            clearTimeout(timer);
            r(true);
          });
        });
        if (!framed) {
          stalled = true;
          break;
        }
        const now = performance.now();
        frames.push(now - last);
        last = now;
      }
      await new Promise((r) => setTimeout(r, 200));
      observer.disconnect();
      frames.sort((a, b) => a - b);
      return {
        stalled,
        frames: frames.length,
        longTasks: longTasks.map((d) => Math.round(d)),
        p95Frame: frames[Math.floor(frames.length * 0.95)]!,
        maxFrame: frames.at(-1)!,
      };
    }, FRAME_STALL_MS);
  // Timing needs the CPU to itself: other tests wait from here (see cpu-lock.ts), not while the
  // rows load.
  await cpuLock.takeExclusive();
  // Wall-clock long tasks also grow when other processes take the CPU, so the assertion is on the
  // renderer main thread's own CPU time (CDP Performance metrics in thread ticks): what the table
  // costs per frame, whatever else the machine is doing. Long tasks are still reported.
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Performance.enable', { timeDomain: 'threadTicks' });
  const taskSeconds = async () => {
    const { metrics } = await cdp.send('Performance.getMetrics');
    return metrics.find((m) => m.name === 'TaskDuration')!.value;
  };
  // The baseline: a plain scroller of the same size and height over striped background, the
  // least a browser can do per scrolled frame (paint and composite), measured in the same run.
  await scroller.evaluate((el) => {
    const box = el.getBoundingClientRect();
    const plain = document.createElement('div');
    plain.dataset.testid = 'baseline-scroll';
    Object.assign(plain.style, { position: 'fixed', left: `${box.left}px`, top: `${box.top}px`, width: `${box.width}px`, height: `${box.height}px`, overflow: 'auto', zIndex: '9999', background: 'canvas' });
    const tall = document.createElement('div');
    Object.assign(tall.style, { height: `${el.scrollHeight}px`, background: 'repeating-linear-gradient(#0000 0 35px, #8884 35px 36px)' });
    plain.append(tall);
    document.body.append(plain);
  });
  const baseline = events.baselineScroll();
  const rounds = [];
  for (let round = 1; round <= 3; round++) {
    const cost = async (target: typeof scroller) => {
      const cpuBefore = await taskSeconds();
      const r = await measure(target);
      return { ...r, cpuPerFrameMs: (((await taskSeconds()) - cpuBefore) * 1000) / r.frames };
    };
    const plain = await cost(baseline);
    await baseline.evaluate((el) => (el.style.display = 'none'));
    const table = await cost(scroller);
    await baseline.evaluate((el) => (el.style.display = ''));
    if (plain.stalled || table.stalled) {
      // CPU per frame over a round cut short is not comparable with its partner's: measure again.
      console.log(`Scroll round ${round}: the renderer produced no frame for ${FRAME_STALL_MS / 1000} s (${plain.stalled ? 'plain scroller' : 'table'}); round discarded`);
      continue;
    }
    rounds.push({ table, plain, ratio: table.cpuPerFrameMs / plain.cpuPerFrameMs });
    console.log(
      `Scroll round ${round} over ${total} loaded rows: ${table.frames} frames, main-thread CPU per frame ${table.cpuPerFrameMs.toFixed(2)} ms ` +
        `(plain scroller ${plain.cpuPerFrameMs.toFixed(2)} ms), long tasks > 50 ms: ${table.longTasks.length}` +
        `${table.longTasks.length ? ` (longest ${Math.max(...table.longTasks)} ms)` : ''}, p95 frame ${table.p95Frame.toFixed(1)} ms, max frame ${table.maxFrame.toFixed(1)} ms`,
    );
    // Other tests wait while this one holds the CPU: one round within the bound is enough.
    if (table.cpuPerFrameMs / plain.cpuPerFrameMs < MAX_COST_RATIO) break;
  }
  expect(rounds.length, 'rounds in which the renderer kept producing frames').toBeGreaterThan(0);
  const cheapest = Math.min(...rounds.map((r) => r.ratio));
  console.log(`Main-thread CPU per scrolled frame, table / plain scroller (cheapest round): ${cheapest.toFixed(1)}x`);
  expect(cheapest, 'main-thread CPU per scrolled frame, table / plain scroller').toBeLessThan(MAX_COST_RATIO);
});
