/**
 * Child process for the crash tests: publishes and dispatches (or queues and resumes) until the
 * parent SIGKILLs it. Prints "ACK <event_id>" after each acknowledged publish.
 *
 * usage: tsx crash-child.ts <dataDir> <bundlePath> dispatch|resume <count>
 */
import { Store } from '@switchboard/store';
import { Runtime } from '../runtime';

const [dataDir, bundlePath, mode, countArg] = process.argv.slice(2);
const total = Number(countArg);
const store = await Store.open({ dataDir: dataDir! });
const runtime = await Runtime.boot({ store, bundlePath, autoStart: mode === 'dispatch', dispatcher: { concurrency: 2 } });
if (mode === 'resume') await runtime.pause();
for (let i = 0; i < total; i++) {
  const res = await runtime.publish({ event_name: 'order.placed', payload: { order_id: `o${i}`, amount: i } });
  process.stdout.write(`ACK ${res.event_id}\n`);
}
process.stdout.write(mode === 'resume' ? 'RESUMING\n' : 'PUBLISHED\n');
if (mode === 'resume') await runtime.resume();
process.stdout.write('DONE\n');
await new Promise(() => undefined);
