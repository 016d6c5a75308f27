/**
 * While a resume releases a large queue, the server keeps answering: health.ping calls made after
 * the resume started are answered before the resume itself returns (the release yields to the
 * event loop between bounded batches instead of holding it until the queue is empty).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CONTROL_BUNDLE, ok } from './control-helpers';
import { startTestServer, type TestServer } from './harness';

const QUEUED = 1_500;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE, SWITCHBOARD_LOG_LEVEL: 'error' } });
});
afterAll(() => server.close());

it(`health.ping keeps answering while runtime.resume releases ${QUEUED} queued publishes`, async () => {
  await ok(server, 'runtime.pause');
  for (let start = 0; start < QUEUED; start += 100) {
    const batch = Array.from({ length: 100 }, (_, i) => ({ jsonrpc: '2.0', id: start + i, method: 'event.publish', params: { event_name: 'tick', payload: { n: start + i } } }));
    const answers = (await (await server.post('/v1/rpc', batch)).json()) as { result?: { status: string } }[];
    expect(answers.filter((a) => a.result?.status === 'queued')).toHaveLength(100);
  }
  expect((await ok(server, 'runtime.status')).queue_depth).toBe(QUEUED);

  let resumeDone = false;
  const resume = ok(server, 'runtime.resume').then((r) => {
    resumeDone = true;
    return r;
  });
  let answeredDuringResume = 0;
  while (!resumeDone) {
    const pong = await ok(server, 'health.ping');
    expect(pong).toBeTruthy();
    if (!resumeDone) answeredDuringResume++;
  }
  expect((await resume).released).toBe(QUEUED);
  expect(answeredDuringResume).toBeGreaterThanOrEqual(5);
}, 120_000);
