/**
 * A reader-writer lock across Playwright workers, on files. Every test holds it shared; a timing
 * test (the scroll measurement) holds it exclusively, so no other browser competes for the two
 * CPU cores while it measures. Each side announces itself first and checks the other second, so a
 * test never slips in unseen.
 */
import fs from 'node:fs';
import path from 'node:path';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function lockDir(): string | undefined {
  return process.env.E2E_LOCK_DIR;
}

export async function acquireShared(name: string): Promise<() => void> {
  const dir = lockDir();
  if (!dir) return () => undefined;
  const mine = path.join(dir, `shared-${process.pid}-${name.replace(/[^\w-]/g, '_').slice(0, 60)}-${Date.now()}`);
  const exclusive = path.join(dir, 'exclusive');
  for (;;) {
    fs.writeFileSync(mine, '');
    if (!fs.existsSync(exclusive)) break;
    fs.rmSync(mine, { force: true });
    await sleep(200);
  }
  return () => fs.rmSync(mine, { force: true });
}

export async function acquireExclusive(maxWaitMs: number): Promise<() => void> {
  const dir = lockDir();
  if (!dir) return () => undefined;
  const exclusive = path.join(dir, 'exclusive');
  for (;;) {
    try {
      fs.writeFileSync(exclusive, String(process.pid), { flag: 'wx' });
      break;
    } catch {
      await sleep(200);
    }
  }
  const deadline = Date.now() + maxWaitMs;
  while (fs.readdirSync(dir).some((f) => f.startsWith('shared-')) && Date.now() < deadline) await sleep(200);
  return () => fs.rmSync(exclusive, { force: true });
}
