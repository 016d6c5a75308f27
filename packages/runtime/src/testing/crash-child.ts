/**
 * Child process for the crash tests: publishes and dispatches (or queues and resumes) until the
 * parent SIGKILLs it. Prints "ACK <event_id>" after each acknowledged publish, and in resume mode
 * "MID-RESUME <released>" when it has stopped part-way through the resume.
 *
 * usage: tsx crash-child.ts <dataDir> <bundlePath> dispatch|resume|publish-load <count>
 */
import { Store } from '@switchboard/store';
import { countRows } from '@switchboard/store/testing';
import { Runtime } from '../runtime';

const [dataDir, bundlePath, mode, countArg] = process.argv.slice(2);
const total = Number(countArg);
const store = await Store.open({ dataDir: dataDir! });
const runtime = await Runtime.boot({ store, bundlePath, autoStart: mode === 'dispatch', dispatcher: { concurrency: 2 } });
if (mode === 'resume') await runtime.pause();
if (mode === 'publish-load') {
  // Sixteen publishers at once, so publishes share group commits, until the parent kills us.
  let next = 0;
  const publisher = async () => {
    for (;;) {
      const i = next++;
      const res = await runtime.publish({ event_name: 'order.placed', payload: { order_id: `o${i}`, amount: i } });
      process.stdout.write(`ACK ${res.event_id}\n`);
    }
  };
  await Promise.all(Array.from({ length: 16 }, publisher));
}
for (let i = 0; i < total; i++) {
  const res = await runtime.publish({ event_name: 'order.placed', payload: { order_id: `o${i}`, amount: i } });
  process.stdout.write(`ACK ${res.event_id}\n`);
}
process.stdout.write(mode === 'resume' ? 'RESUMING\n' : 'PUBLISHED\n');
// Alive until killed: a resume that finishes must not end the process, the parent's kill is the test.
setInterval(() => undefined, 60_000);
if (mode === 'resume') {
  // Once resume has released some but not all, say so and stop between its batches, so the parent's
  // SIGKILL lands mid-resume however fast or slow the machine is (a timer raced the resume and lost
  // on a loaded machine: the child finished and exited before the kill).
  const watch = setInterval(async () => {
    const n = await countRows(store, 'ingress_queue', 'released');
    if (Number(n) < 100 || Number(n) >= total) return;
    clearInterval(watch);
    process.stdout.write(`MID-RESUME ${n}\n`); // synchronous on a pipe on Linux
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 60_000);
  }, 2);
  await runtime.resume();
}
process.stdout.write('DONE\n');
