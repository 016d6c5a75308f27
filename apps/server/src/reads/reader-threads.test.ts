/**
 * The pool's own behaviour, with stand-in thread scripts that speak the reader threads' protocol
 * (the real script, reading a real store, is tested on the built server: test/reader-threads.test.ts):
 * the least busy thread takes a read, errors come back as the read's own, a thread that dies fails
 * only its own reads and is replaced, closing waits for reads in flight, and a thread that cannot
 * start fails the start.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { RpcError } from '@switchboard/contract';
import { afterAll, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { ReaderThreads } from './reader-threads';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'reader-threads-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

function scriptFile(name: string, text: string): URL {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return pathToFileURL(file);
}

// Answers a read with its params and its thread's id. `hold` answers only when the thread is
// closed (as the real thread, a close waits for the reads in flight); `exit` ends the thread;
// `rpcError` and `failure` answer with those.
const standIn = scriptFile(
  'stand-in-thread.mjs',
  `import { parentPort, threadId } from 'node:worker_threads';
const held = [];
const answer = (m) => parentPort.postMessage({ id: m.id, json: JSON.stringify({ params: m.params, thread: threadId }) });
parentPort.on('message', (m) => {
  if (m.close) { for (const h of held) answer(h); parentPort.close(); return; }
  if (m.params.exit) process.exit(7);
  if (m.params.hold) { held.push(m); return; }
  if (m.params.rpcError) { parentPort.postMessage({ id: m.id, rpcError: { code: 'INVALID_CURSOR', message: 'Cursor is malformed', details: { at: 1 } } }); return; }
  if (m.params.failure) { parentPort.postMessage({ id: m.id, failure: { message: 'database is locked', code: 'SQLITE_BUSY' } }); return; }
  answer(m);
});
parentPort.postMessage({ ready: true });
`,
);

function start(script: URL, threads: number, lines: Record<string, unknown>[] = []): Promise<ReaderThreads> {
  const logger = createLogger('debug', (line) => lines.push(JSON.parse(line)));
  return ReaderThreads.start({ file: 'unused', cursorSecret: Buffer.alloc(32), payloadIndexPaths: [], threads, logger, script });
}

type Echo = { params: Record<string, unknown>; thread: number };
const read = async (pool: ReaderThreads, params: Record<string, unknown>): Promise<Echo> => (await pool.read('event.list', params as never)).value() as unknown as Echo;

it('sends a read to the least busy thread, and a close answers the reads in flight first', async () => {
  const pool = await start(standIn, 2);
  const held = read(pool, { hold: true });
  const other = await read(pool, { n: 1 });
  await pool.close();
  const first = await held;
  expect(first.params).toEqual({ hold: true });
  expect(other.thread).not.toBe(first.thread);
  await expect(pool.read('event.list', {} as never)).rejects.toThrow('closing');
});

it("gives a read its thread's refusal as an RpcError and other failures with their driver code", async () => {
  const pool = await start(standIn, 1);
  try {
    const refused = await pool.read('event.list', { rpcError: true } as never).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(RpcError);
    expect(refused).toMatchObject({ code: 'INVALID_CURSOR', message: 'Cursor is malformed', details: { at: 1 } });
    const failed = await pool.read('event.list', { failure: true } as never).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(Error);
    expect(failed).toMatchObject({ message: 'database is locked', code: 'SQLITE_BUSY' });
    // The thread is still there.
    expect((await read(pool, { n: 2 })).params).toEqual({ n: 2 });
  } finally {
    await pool.close();
  }
});

it('fails only the reads of a thread that dies, says so, and reads in a new thread after', async () => {
  const lines: Record<string, unknown>[] = [];
  const pool = await start(standIn, 1, lines);
  try {
    const before = await read(pool, { n: 1 });
    await expect(read(pool, { exit: true })).rejects.toThrow('the reader thread exited (code 7)');
    expect(pool.size).toBe(0);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'reader thread stopped; a new one starts on the next read', reads_failed: 1 }));
    const after = await read(pool, { n: 2 });
    expect(after.params).toEqual({ n: 2 });
    expect(after.thread).not.toBe(before.thread);
    expect(pool.size).toBe(1);
  } finally {
    await pool.close();
  }
});

it('fails the start when a thread cannot start', async () => {
  const broken = scriptFile('broken-thread.mjs', `throw new Error('cannot open the store file');\n`);
  await expect(start(broken, 2)).rejects.toThrow('cannot open the store file');
});
