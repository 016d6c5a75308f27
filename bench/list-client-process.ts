/**
 * The parent's side of the list client (bench/list-client.ts): forks it as a process of its own and
 * runs one job on it. bench:pg and bench:list time their 1-connection pages through it.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ListJob, ListTimes } from './list-client';

const CLIENT_SCRIPT = fileURLToPath(new URL('./list-client.ts', import.meta.url));

export function forkListClient(): ChildProcess {
  return fork(CLIENT_SCRIPT, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** The job's times, on the wire and through Node's http client; rejects if the client fails or exits. */
export function runListJob(client: ChildProcess, job: ListJob): Promise<{ wire: number[]; node: number[] }> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`the list client exited (${code}) during ${job.method ?? 'event.list'}`));
    client.once('exit', onExit);
    client.once('message', (answer: ListTimes) => {
      client.off('exit', onExit);
      if ('error' in answer) reject(new Error(answer.error));
      else resolve(answer);
    });
    client.send(job);
  });
}
