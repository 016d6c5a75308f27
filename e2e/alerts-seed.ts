/** Alert rules and destinations of a test's own, made and removed over the API by the shared server's admin token. */
import type { SharedServer } from './fixtures';

export const alertKey = () => `e2e-alerts-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
export const shortTag = () => Math.random().toString(36).slice(2, 7);

/** A webhook destination, a rule sending to it, and a test notice to it (sent by the server in the background). */
export async function seedAlerts(server: SharedServer, receiverUrl: string, label: string) {
  const destinationName = `${label} hook ${shortTag()}`;
  const ruleName = `${label} rule ${shortTag()}`;
  const { destination } = await server.rpc('alert.destination_create', { name: destinationName, kind: 'webhook', url: receiverUrl, idempotency_key: alertKey() });
  const { rule } = await server.rpc('alert.rule_create', {
    name: ruleName,
    when: { trigger: 'incident.occurrences', threshold: 1000, window_s: 300 },
    destination_ids: [destination.id],
    idempotency_key: alertKey(),
  });
  const { notice } = await server.rpc('alert.test', { destination_id: destination.id, idempotency_key: alertKey() });
  return { destination, rule, notice, ruleNames: [ruleName], destinationNames: [destinationName] };
}

/** Removes what a test added, so the shared server's other tests see no notices of ours. */
export async function removeAlerts(server: SharedServer, ruleNames: string[], destinationNames: string[]) {
  const rules = await server.rpc('alert.rules', {});
  for (const r of rules.items.filter((r) => ruleNames.includes(r.name))) await server.rpc('alert.rule_delete', { rule_id: r.id, idempotency_key: alertKey() });
  const destinations = await server.rpc('alert.destinations', {});
  for (const d of destinations.items.filter((d) => destinationNames.includes(d.name)))
    await server.rpc('alert.destination_delete', { destination_id: d.id, idempotency_key: alertKey() });
}
