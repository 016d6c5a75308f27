/**
 * npm run fuzz:rpc [-- COUNT [SEED]]: the JSON-RPC fuzz at full size (10,000 bodies by default)
 * against a fresh in-process server, printing what it found. Exits 1 on any finding.
 */
import { CONTROL_BUNDLE } from '../apps/server/test/control-helpers';
import { runRpcFuzz } from '../apps/server/test/fuzz/rpc-fuzz';
import { startTestServer } from '../apps/server/test/harness';

const count = Number(process.argv[2] ?? 10_000);
const seed = Number(process.argv[3] ?? 20261122);
const server = await startTestServer({ env: { SWITCHBOARD_BUNDLE: CONTROL_BUNDLE, SWITCHBOARD_LOG_LEVEL: 'error' } });
const started = performance.now();
const findings = await runRpcFuzz({ url: server.url, token: server.token, count, seed });
await server.close();
console.log(`fuzz:rpc seed ${seed}: ${findings.sent} bodies in ${((performance.now() - started) / 1000).toFixed(1)} s`);
console.log(`  HTTP 5xx: ${findings.http5xx}`);
console.log(`  replies that are not JSON-RPC envelopes: ${findings.notEnvelope}`);
console.log(`  INTERNAL errors: ${findings.internal}`);
console.log(`  stack traces: ${findings.stackTraces}`);
console.log(`  answers by outcome: ${Object.entries(findings.outcomes).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(', ')}`);
for (const e of findings.examples) console.log(`  ${e.problem}: ${e.body}\n    -> ${e.answer}`);
process.exit(findings.http5xx + findings.notEnvelope + findings.internal + findings.stackTraces > 0 ? 1 : 0);
