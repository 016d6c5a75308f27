/**
 * Reader threads on the built server, as `npm start` runs it (in-process test servers read on the
 * main thread: harness.ts): event.list pages read in a thread hold every write acknowledged before
 * them, come out byte for byte as the main thread writes them, and carry cursors either side
 * accepts, and searches on an indexed payload field are served by its index there too; a
 * thread's refusal reaches the client as the same error; batches and the WebSocket get the same pages;
 * with the default policy (threads while the main thread is busy) concurrent walks get them too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { MethodName, ParamsInput, Result } from '@switchboard/contract';
import { startServerProcess, type ServerProcess } from '@switchboard/testkit';
import { afterAll, expect, it } from 'vitest';
import { CONTROL_BUNDLE } from './control-helpers';
import type { RpcAnswer } from './harness';
import { RpcSocket, wsUrl } from './ws-client';

const TOKEN = 'sbk_reader_threads_test_token_01';
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-readers-'));
const started: ServerProcess[] = [];
afterAll(async () => {
  for (const s of started) await s.kill();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

// The control bundle with an indexed payload field on tick, so that a search is served by its index.
const TICK = '        n: { type: number }\n    subscribers:\n      - { type: node, id: count-tick }';
const controlBundle = fs.readFileSync(CONTROL_BUNDLE, 'utf8');
if (!controlBundle.includes(TICK)) throw new Error('the control bundle no longer declares tick as this test expects');
const bundle = path.join(dataDir, 'bundle.yaml');
fs.writeFileSync(bundle, controlBundle.replace(TICK, '        n: { type: number }\n        ref: { type: string }\n    indexed_payload_fields: [ref]\n    subscribers:\n      - { type: node, id: count-tick }'));

const env = { SWITCHBOARD_BUNDLE: bundle, SWITCHBOARD_DEMO: 'off', SWITCHBOARD_RATE_LIMIT_PER_S: '0', SWITCHBOARD_LOG_LEVEL: 'error' };

async function start(extra: Record<string, string>): Promise<ServerProcess> {
  const server = await startServerProcess({ dataDir, token: TOKEN, env: { ...env, ...extra }, stdout: 'capture' });
  started.push(server);
  return server;
}

/** POSTs a body to /v1/rpc; the answer's text as sent. */
async function post(url: string, body: unknown): Promise<string> {
  const res = await fetch(url + '/v1/rpc', {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return res.text();
}

async function call<M extends MethodName>(url: string, method: M, params: ParamsInput<M>): Promise<RpcAnswer<Result<M>>> {
  return JSON.parse(await post(url, { jsonrpc: '2.0', id: 1, method, params })) as RpcAnswer<Result<M>>;
}

/** An event.list answer's result, from its text. */
const pageOf = (text: string): Result<'event.list'> => (JSON.parse(text) as RpcAnswer<Result<'event.list'>>).result!;

/** Every page of a list as answered (text), following next_cursor, and the cursors. */
async function walk(url: string, params: Record<string, unknown>): Promise<{ pages: string[]; cursors: string[] }> {
  const pages: string[] = [];
  const cursors: string[] = [];
  let cursor: string | undefined;
  do {
    const text = await post(url, { jsonrpc: '2.0', id: 1, method: 'event.list', params: { ...params, ...(cursor ? { cursor } : {}) } });
    pages.push(text);
    cursor = pageOf(text).next_cursor;
    if (cursor) cursors.push(cursor);
  } while (cursor);
  return { pages, cursors };
}

it('reads event.list pages in reader threads exactly as the main thread reads them', async () => {
  // Every page in a thread (by default a lone caller's pages are read on the main thread).
  const threaded = await start({ SWITCHBOARD_READER_THREADS_WHEN: 'always' });
  expect(threaded.output()).toContain('reads  2 reader threads beside the main thread');

  // Each publish is answered after its commit: the next page, read on another connection, has it.
  const published: string[] = [];
  for (let n = 0; n < 24; n++) {
    const answer = await call(threaded.url, 'event.publish', n % 4 === 0 ? { event_name: 'charge.noted', payload: { n } } : { event_name: 'tick', payload: { n, ref: `r-${n % 2}` }, entity_id: `e-${n % 3}` });
    expect(answer.result?.event_id).toEqual(expect.any(String));
    published.push(answer.result!.event_id!);
    const newest = await call(threaded.url, 'event.list', { limit: 1 });
    expect(newest.result?.events[0]?.event_id).toBe(answer.result!.event_id);
  }
  // Settled: every tick's delivery done, so the pages no longer change.
  const deadline = Date.now() + 20_000;
  for (;;) {
    const page = await call(threaded.url, 'event.list', { limit: 100 });
    const events = page.result!.events;
    if (events.every((e) => e.deliveries.every((d) => d.status === 'delivered'))) break;
    if (Date.now() > deadline) throw new Error(`deliveries not settled: ${JSON.stringify(events.flatMap((e) => e.deliveries))}`);
    await new Promise((r) => setTimeout(r, 50));
  }

  const all = await walk(threaded.url, { limit: 7 });
  expect(all.pages).toHaveLength(4);
  expect(all.pages.flatMap((p) => pageOf(p).events.map((e) => e.event_id))).toEqual([...published].reverse());
  expect(pageOf(all.pages[0]!).events.find((e) => e.event_name === 'tick')?.deliveries).toEqual([
    expect.objectContaining({ subscriber_id: 'count-tick', status: 'delivered', attempts: 1 }),
  ]);
  const filtered = await walk(threaded.url, { limit: 3, filter: { entity_id: 'e-1' } });
  // A search on the indexed field is served by the index in a thread too; one on another field is not.
  const indexedSearch = { limit: 4, filter: { payload: [{ path: 'ref', op: 'eq', value: 'r-1' }] } };
  const searched = await walk(threaded.url, indexedSearch);
  expect(searched.pages.map((p) => pageOf(p).payload_search)).toEqual(searched.pages.map(() => ({ indexed: true, scan_limited: false })));
  expect(searched.pages.flatMap((p) => pageOf(p).events.map((e) => e.payload.n))).toEqual([23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1].filter((n) => n % 4 !== 0));
  const scanned = await call(threaded.url, 'event.list', { limit: 4, filter: { payload: [{ path: 'n', op: 'eq', value: 5 }] } });
  expect(scanned.result?.payload_search).toEqual({ indexed: false, scan_limited: false });
  expect(scanned.result?.events.map((e) => e.payload.n)).toEqual([5]);

  // Refusals come back as the thread's read threw them.
  const altered = all.cursors[0]!.slice(0, -2) + (all.cursors[0]!.endsWith('AA') ? 'BB' : 'AA');
  expect((await call(threaded.url, 'event.list', { limit: 7, cursor: altered })).error).toMatchObject({
    message: 'Cursor signature does not match; it was altered or not issued by this server',
    data: { code: 'INVALID_CURSOR' },
  });
  expect((await call(threaded.url, 'event.list', { limit: 7, filter: { event_name: 'tick' }, cursor: all.cursors[0] })).error).toMatchObject({ data: { code: 'INVALID_CURSOR' } });

  // A batch and the WebSocket carry the same page.
  const batch = JSON.parse(
    await post(threaded.url, [
      { jsonrpc: '2.0', id: 'a', method: 'event.list', params: { limit: 7 } },
      { jsonrpc: '2.0', id: 'b', method: 'health.ping' },
    ]),
  ) as RpcAnswer<unknown>[];
  expect(batch[0]).toEqual({ jsonrpc: '2.0', id: 'a', result: pageOf(all.pages[0]!) });
  const socket = await RpcSocket.open(wsUrl(threaded.url), { headers: { authorization: `Bearer ${TOKEN}` } });
  const overSocket = await socket.call('event.list', { limit: 7 });
  socket.socket.close();
  expect(overSocket.result).toEqual(pageOf(all.pages[0]!));

  await threaded.stop();
  expect(threaded.child.exitCode).toBe(0);

  // The same store read on the main thread: the same bytes, and a thread's cursor is accepted.
  const main = await start({ SWITCHBOARD_READER_THREADS: '0' });
  expect(main.output()).not.toContain('reader threads');
  expect((await walk(main.url, { limit: 7 })).pages).toEqual(all.pages);
  expect((await walk(main.url, { limit: 3, filter: { entity_id: 'e-1' } })).pages).toEqual(filtered.pages);
  expect((await walk(main.url, indexedSearch)).pages).toEqual(searched.pages);
  expect(await post(main.url, { jsonrpc: '2.0', id: 1, method: 'event.list', params: { limit: 7, cursor: all.cursors[1] } })).toBe(all.pages[2]);
  await main.stop();

  // The default: threads while the main thread is busy. Walks side by side get the same pages
  // wherever each page was read.
  const busy = await start({});
  expect(busy.output()).toContain('reads  up to 2 reader threads beside the main thread, while it is busy');
  const walks = await Promise.all(Array.from({ length: 12 }, (_, i) => walk(busy.url, i % 2 ? { limit: 7 } : indexedSearch)));
  walks.forEach((w, i) => expect(w.pages).toEqual(i % 2 ? all.pages : searched.pages));
  await busy.stop();
}, 90_000);
