/** Alert destinations the alert.* method tests share. */
import type { Result } from '@switchboard/contract';
import { ok } from '../control-helpers';
import type { TestServer } from '../harness';

type Destination = Result<'alert.destinations'>['items'][number];

/** The webhook destination named "ops webhook" (nothing listens at its URL), made on first use. */
export async function opsWebhook(server: TestServer): Promise<Destination> {
  const { items } = await ok(server, 'alert.destinations', {});
  const known = items.find((d) => d.name === 'ops webhook');
  if (known) return known;
  return (await ok(server, 'alert.destination_create', { name: 'ops webhook', kind: 'webhook', url: 'http://127.0.0.1:9/hook' })).destination;
}

/** An hour from now, as an ISO timestamp: a silence that is still on. */
export const inAnHour = (): string => new Date(Date.now() + 3_600_000).toISOString();

/** A notice as alert.notices lists it now (its status, attempts and last error). */
export async function noticeStatus(server: TestServer, id: string) {
  return (await ok(server, 'alert.notices', { limit: 100 })).items.find((n) => n.id === id)!;
}
