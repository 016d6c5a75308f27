/**
 * A property-based fuzz of the JSON-RPC endpoint: generated bodies (calls to every contract method
 * with arbitrary params, malformed envelopes, batches, non-JSON text) are sent to a real server,
 * and every answer is checked: no HTTP 5xx, always a JSON-RPC envelope (or 204 for notifications),
 * never INTERNAL, never a stack trace. Deterministic for a given seed.
 */
import fc from 'fast-check';
import { methods } from '@switchboard/contract';

export interface FuzzFindings {
  sent: number;
  http5xx: number;
  notEnvelope: number;
  internal: number;
  stackTraces: number;
  /** Answers by outcome: `result`, an error code, or `204`. */
  outcomes: Record<string, number>;
  /** The first few offending bodies with what went wrong, for the report. */
  examples: { body: string; problem: string; answer: string }[];
}

const methodNames = Object.keys(methods);
const paramNames = [
  ...new Set(
    Object.values(methods).flatMap((def) => {
      const shape = (def.params as unknown as { shape?: Record<string, unknown> }).shape;
      return shape ? Object.keys(shape) : [];
    }),
  ),
];
const trickyStrings = fc.constantFrom('constructor', '__proto__', 'toString', '', ' ', '%', '\u0000', '💥', 'a'.repeat(300), '2026-01-01T00:00:00+14:00', 'null', '[]');
const scalar = fc.oneof(fc.string(), trickyStrings, fc.integer(), fc.double(), fc.boolean(), fc.constant(null));
const value = fc.oneof({ depthSize: 'small' }, scalar, fc.jsonValue({ maxDepth: 4 }), fc.array(scalar, { maxLength: 4 }));
const params = fc.oneof(
  { weight: 6, arbitrary: fc.dictionary(fc.constantFrom(...paramNames), value, { maxKeys: 5 }) },
  { weight: 2, arbitrary: fc.dictionary(fc.oneof(fc.constantFrom(...paramNames), trickyStrings, fc.string()), value, { maxKeys: 6 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
);
const id = fc.oneof(
  { weight: 4, arbitrary: fc.integer() },
  { weight: 4, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 1, arbitrary: fc.oneof(fc.constant(null), fc.double(), fc.boolean(), fc.object({ maxDepth: 1 })) },
);
const method = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...methodNames) }, { weight: 1, arbitrary: trickyStrings }, { weight: 1, arbitrary: fc.string() });

const call = fc
  .record(
    { jsonrpc: fc.oneof({ weight: 9, arbitrary: fc.constant('2.0') }, { weight: 1, arbitrary: value }), id, method, params },
    { requiredKeys: ['jsonrpc', 'method'] },
  )
  // An applied reset would empty the store mid-run and slow it down; previews are fuzzed.
  .filter((c) => !(c.method === 'runtime.nuke' && !(typeof c.params === 'object' && c.params !== null && (c.params as Record<string, unknown>).dry_run === true)));

export const fuzzBody: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: call.map((c) => JSON.stringify(c)) },
  { weight: 2, arbitrary: fc.array(call, { minLength: 0, maxLength: 5 }).map((b) => JSON.stringify(b)) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.oneof(fc.string(), fc.constantFrom('{', '[', '{"jsonrpc":"2.0",', '\u0000', '{"a":1}}')) },
);

function isEnvelope(entry: unknown): boolean {
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return false;
  const e = entry as Record<string, unknown>;
  if (e.jsonrpc !== '2.0' || !('id' in e)) return false;
  if ('result' in e) return !('error' in e);
  const err = e.error as Record<string, unknown> | undefined;
  return !!err && typeof err.code === 'number' && typeof err.message === 'string' && typeof (err.data as Record<string, unknown> | undefined)?.code === 'string';
}

const STACK_TRACE = /\n\s+at\s|node_modules|\.ts:\d+:\d+|\bat (async )?[\w.<>]+ \(/;

export async function runRpcFuzz(options: { url: string; token: string; count: number; seed: number; concurrency?: number }): Promise<FuzzFindings> {
  const bodies = fc.sample(fuzzBody, { seed: options.seed, numRuns: options.count });
  const findings: FuzzFindings = { sent: 0, http5xx: 0, notEnvelope: 0, internal: 0, stackTraces: 0, outcomes: {}, examples: [] };
  const count = (outcome: string) => (findings.outcomes[outcome] = (findings.outcomes[outcome] ?? 0) + 1);
  const note = (body: string, problem: string, answer: string) => {
    if (findings.examples.length < 10) findings.examples.push({ body: body.slice(0, 300), problem, answer: answer.slice(0, 300) });
  };
  let next = 0;
  const worker = async () => {
    while (next < bodies.length) {
      const body = bodies[next++]!;
      const res = await fetch(options.url + '/v1/rpc', {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${options.token}` },
        body,
      });
      const text = await res.text();
      findings.sent++;
      if (res.status >= 500) {
        findings.http5xx++;
        note(body, `HTTP ${res.status}`, text);
      }
      if (STACK_TRACE.test(text)) {
        findings.stackTraces++;
        note(body, 'stack trace', text);
      }
      if (res.status === 204) {
        count('204');
        continue;
      }
      let answer: unknown;
      try {
        answer = JSON.parse(text);
      } catch {
        findings.notEnvelope++;
        note(body, 'not JSON', text);
        continue;
      }
      const entries = Array.isArray(answer) ? answer : [answer];
      for (const e of entries) count((e as { error?: { data?: { code?: string } } })?.error?.data?.code ?? 'result');
      if ((Array.isArray(answer) && answer.length === 0) || !entries.every(isEnvelope)) {
        findings.notEnvelope++;
        note(body, 'not a JSON-RPC envelope', text);
      }
      if (entries.some((e) => (e as { error?: { data?: { code?: string } } })?.error?.data?.code === 'INTERNAL')) {
        findings.internal++;
        note(body, 'INTERNAL', text);
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 4 }, worker));
  return findings;
}
