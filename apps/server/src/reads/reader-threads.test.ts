/**
 * The pool's own behaviour, with stand-in thread scripts that speak the reader threads' protocol
 * (the real script, reading a real store, is tested on the built server: test/reader-threads.test.ts):
 * the least busy thread takes a read, errors come back as the read's own, a thread that dies fails
 * only its own reads and is replaced, closing waits for reads in flight, a thread that cannot start
 * sends pages back to the main thread, and with the `busy` policy the threads start and take pages
 * only while the main thread is busy or they are reading.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { RpcError } from '@switchboard/contract';
import { afterAll, expect, it } from 'vitest';
import { createLogger } from '../logger';
import { BUSY_HOLD_MS, ReaderThreads } from './reader-threads';

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

function start(script: URL, threads: number, lines: Record<string, unknown>[] = [], mainThreadQuiet?: () => boolean, busyHoldMs?: number): ReaderThreads {
  const logger = createLogger('debug', (line) => lines.push(JSON.parse(line)));
  return new ReaderThreads({ file: 'unused', cursorSecret: Buffer.alloc(32), payloadIndexPaths: [], threads, logger, script, ...(mainThreadQuiet ? { mainThreadQuiet, busyHoldMs } : {}) });
}

/** Resolves once `pool` would send a page to a thread (one has started), polling each turn of the loop. */
async function threadStarted(pool: ReaderThreads): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!pool.takesRead()) {
    if (Date.now() > deadline) throw new Error('no reader thread started in 10 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

type Echo = { params: Record<string, unknown>; thread: number };
const read = async (pool: ReaderThreads, params: Record<string, unknown>): Promise<Echo> => (await pool.read('event.list', params as never)).value() as unknown as Echo;

it('sends a read to the least busy thread, and a close answers the reads in flight first', async () => {
  const pool = start(standIn, 2);
  const held = read(pool, { hold: true });
  const other = await read(pool, { n: 1 });
  await pool.close();
  const first = await held;
  expect(first.params).toEqual({ hold: true });
  expect(other.thread).not.toBe(first.thread);
  await expect(pool.read('event.list', {} as never)).rejects.toThrow('closing');
});

it('a close answers the reads still waiting for their thread to start', async () => {
  const pool = start(standIn, 1);
  const queued = read(pool, { n: 1 });
  await pool.close();
  expect((await queued).params).toEqual({ n: 1 });
});

it("gives a read its thread's refusal as an RpcError and other failures with their driver code", async () => {
  const pool = start(standIn, 1);
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
  const pool = start(standIn, 1, lines);
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

it('starts no thread until a page needs one', async () => {
  const pool = start(standIn, 2);
  try {
    expect(pool.size).toBe(0);
    expect((await read(pool, { n: 1 })).params).toEqual({ n: 1 });
    expect(pool.size).toBe(2);
  } finally {
    await pool.close();
  }
});

it('fails the reads of a thread that cannot start, says so, and leaves pages to the main thread', async () => {
  const broken = scriptFile('broken-thread.mjs', `throw new Error('cannot open the store file');\n`);
  const lines: Record<string, unknown>[] = [];
  const pool = start(broken, 1, lines);
  try {
    expect(pool.takesRead()).toBe(true);
    await expect(read(pool, { n: 1 })).rejects.toThrow('cannot open the store file');
    expect(lines).toContainEqual(expect.objectContaining({ level: 'error', msg: 'reader thread could not start; pages are read on the main thread until one does', reads_failed: 1, retry_in_ms: 30_000 }));
    // Not started again on every page: the main thread reads them for now.
    expect(pool.takesRead()).toBe(false);
    expect(pool.size).toBe(0);
    await expect(read(pool, { n: 2 })).rejects.toThrow('no reader thread could start');
  } finally {
    await pool.close();
  }
});

it('busy policy: a page goes to a started thread only while the main thread is busy or a thread is reading', async () => {
  let quiet = true;
  const pool = start(standIn, 2, [], () => quiet, 0);
  try {
    // Quiet: the page is read on the main thread, and the threads start in the background.
    expect(pool.takesRead()).toBe(false);
    expect(pool.size).toBe(2);
    // Busy: pages go to a thread once one has started.
    quiet = false;
    await threadStarted(pool);
    quiet = true;
    expect(pool.takesRead()).toBe(false);
    const held = read(pool, { hold: true });
    // A read in flight: the next page goes to a thread too, however quiet the main thread is.
    expect(pool.takesRead()).toBe(true);
    expect((await read(pool, { n: 1 })).params).toEqual({ n: 1 });
    await pool.close();
    expect((await held).params).toEqual({ hold: true });
    expect(pool.takesRead()).toBe(false);
  } finally {
    await pool.close();
  }
});

it('busy policy: once busy, pages go to threads until the main thread has been quiet for BUSY_HOLD_MS', async () => {
  let quiet = false;
  const pool = start(standIn, 1, [], () => quiet);
  try {
    await threadStarted(pool);
    const busySeen = Date.now();
    quiet = true;
    expect(pool.takesRead()).toBe(true);
    while (pool.takesRead()) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(Date.now() - busySeen).toBeGreaterThanOrEqual(BUSY_HOLD_MS);
  } finally {
    await pool.close();
  }
});
