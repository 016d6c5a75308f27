/**
 * Issue 38: with tracing on, the console shows an event's trace id on the event page and the run's
 * on the run summary, linked to the trace UI the server names (SWITCHBOARD_TRACE_URL_TEMPLATE).
 * The server exports to an OTLP/HTTP receiver in this test process.
 */
import { OtlpReceiver } from '../../apps/server/test/otlp-receiver';
import { expect, signInContext, test } from '../fixtures';
import { EventsPage } from '../pages/events-page';
import { ServerProcess } from '../server-process';

test.describe('trace ids in the console', () => {
  test.describe.configure({ mode: 'serial', timeout: 120_000 });
  let receiver: OtlpReceiver | undefined;
  let server: ServerProcess | undefined;
  test.beforeAll(async () => {
    test.setTimeout(120_000);
    receiver = new OtlpReceiver();
    const endpoint = await receiver.start();
    server = await ServerProcess.start({
      env: {
        SWITCHBOARD_DEMO: 'off',
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_BSP_SCHEDULE_DELAY: '100',
        SWITCHBOARD_TRACE_URL_TEMPLATE: 'https://traces.example/trace/{trace_id}?from=switchboard',
      },
    });
  });
  test.afterAll(async () => {
    await server?.dispose();
    await receiver?.stop();
  });

  test('the event page and the run summary show the trace id with a link to the trace', async ({ page }) => {
    const s = server!;
    const published = await s.rpc('event.publish', { event_name: 'survey.requested', payload: { ticket_id: 'T-trace-1' } });
    const { events } = await s.rpc('event.list', { filter: { event_id: published.event_id! } });
    const traceId = events[0]!.trace_id!;
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    // The id names a trace the receiver got: the publish's own span.
    await expect.poll(() => receiver!.inTrace(traceId).some((span) => span.attributes['switchboard.event.id'] === published.event_id)).toBe(true);

    await signInContext(page, s);
    await page.goto(`${s.url}/events?event_id=${published.event_id}&selected=${published.event_id}`);
    const browser = new EventsPage(page);
    const trace = browser.traceId();
    await expect(trace).toContainText(traceId);
    await expect(browser.traceLink(trace)).toHaveAttribute('href', `https://traces.example/trace/${traceId}?from=switchboard`);

    await page.goto(`${s.url}/events?run_id=${published.run_id}`);
    const summary = browser.runSummary;
    await expect(browser.traceId(summary)).toContainText(traceId);
    await expect(browser.traceLink(summary)).toHaveAttribute('href', `https://traces.example/trace/${traceId}?from=switchboard`);
  });
});
