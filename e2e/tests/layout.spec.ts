/**
 * No screen scrolls sideways, at phone and laptop widths, with the header at its fullest: an
 * operation running (a slow replay, so its progress chip shows) beside go-to-id, the heartbeat and
 * Sign out. Covers every list screen and the pages a record opens on.
 */
import { ServerProcess } from '../server-process';
import { ownDemoServer } from '../runtime-helpers';
import { expect, signInContext, test } from '../fixtures';
import { WIDTHS } from '../console-checks';
import { ConsoleShell } from '../pages/shell-page';

/** Every screen, and one record of each kind opened on its page. */
async function screensOf(server: ServerProcess): Promise<string[]> {
  const [dead, items, agents, conversations, incidents, operations] = await Promise.all([
    server.rpc('event.list', { filter: { has_dead_letter: true }, limit: 1 }),
    server.rpc('mailbox.list', { limit: 1 }),
    server.rpc('agent.list', {}),
    server.rpc('conversation.list', { limit: 1 }),
    server.rpc('runtime.incidents', { limit: 1 }),
    server.rpc('operation.list', { limit: 1 }),
  ]);
  const event = dead.events[0]!;
  const runId = event.run_id!;
  const deadLetterId = event.dead_letters[0]!.dead_letter_id;
  const e = encodeURIComponent;
  return [
    '/incidents',
    `/incidents?state=all&selected=${e(incidents.incidents[0]!.incident_id)}`,
    '/events',
    `/events?event_id=${e(event.event_id)}&selected=${e(event.event_id)}`,
    `/events?run_id=${e(runId)}`,
    `/events?run_id=${e(runId)}&view=list`,
    '/dead-letters',
    `/dead-letters?event_id=${e(event.event_id)}&selected=${e(event.event_id)}&dead_letter=${e(deadLetterId)}`,
    '/mailbox',
    `/mailbox/${e(items.items[0]!.mailbox_id)}`,
    '/agents',
    `/agents/${e(agents.agents[0]!.agent_id)}`,
    '/conversations',
    `/conversations/${e(conversations.conversations[0]!.session_id)}`,
    '/runtime',
    `/runtime?operation=${e(operations.operations[0]!.operation_id)}#operations`,
    '/admin',
    '/audit',
  ];
}

test.describe('layout', () => {
  let own: ServerProcess;
  ownDemoServer(async (server) => {
    own = server;
    // A replay of every event at 0.1/s: it runs for the whole test, so the header shows it.
    const estimate = await own.rpc('event.replay', { dry_run: true });
    await own.rpc('event.replay', { dry_run: false, expected_plan_hash: estimate.plan.plan_hash, rate_per_second: 0.1 });
  });

  test('no screen scrolls sideways at 390 or 1280 px while an operation runs', async ({ page }) => {
    test.setTimeout(180_000);
    const screens = await screensOf(own);
    await signInContext(page, own);
    const shell = new ConsoleShell(page);
    for (const w of WIDTHS) {
      await page.setViewportSize({ width: w.width, height: w.height });
      for (const screen of screens) {
        await page.goto(own.url + screen);
        await expect(shell.heading, screen).toBeVisible();
        await expect(shell.runningOperations, screen).toBeVisible();
        await expect(shell.heartbeat, screen).toContainText('Healthy');
        await shell.expectNoHorizontalScroll(`${screen} at ${w.width} px`);
      }
    }
  });
});
