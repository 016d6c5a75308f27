/**
 * Screenshots of every screen from two console builds, compared pixel by pixel: for a change that
 * must not change how the console looks (a style move, a dependency bump).
 *
 *   npx vite build --outDir /tmp/dist-before      # on the old commit
 *   npx tsx scripts/compare-screens.ts before /tmp/dist-before
 *   npx vite build --outDir /tmp/dist-after       # on the new one
 *   npx tsx scripts/compare-screens.ts after /tmp/dist-after
 *   npx tsx scripts/compare-screens.ts --compare before after
 *
 * Both captures use one data folder (made with the demo on the first capture and left to settle)
 * and the same frozen browser clock, with the live heartbeat masked. Shots and red-marked diffs go
 * to scratch/screens-compare/. Run a build against itself once to see the noise: rounded corners
 * anti-alias differently from run to run, and uptimes and round trips are live values.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Page } from '@playwright/test';

const root = path.resolve(import.meta.dirname, '..');
const shots = path.join(root, 'scratch', 'screens-compare');
const dataDir = path.join(os.tmpdir(), 'switchboard-compare-screens-data');
const live = path.join(os.tmpdir(), 'switchboard-compare-screens-dist');
const port = 4871;
const url = `http://127.0.0.1:${port}`;
const token = 'sbk_compare_screens_token_0123456789abcdef';
// The browser clock stops a few minutes after the data was made, the same instant in every run.
const frozenFile = `${dataDir}.frozen-at`;
let frozen = new Date();

type View = { name: string; open: (page: Page) => Promise<void>; signedOut?: boolean };

const row = (testId: string) => async (page: Page) => {
  await page.getByTestId(testId).first().click();
};
const views: View[] = [
  { name: 'sign-in', signedOut: true, open: async (p) => { await p.goto(url + '/'); await p.getByLabel('Access token').waitFor(); } },
  { name: 'incidents', open: async (p) => { await p.goto(url + '/incidents?window=168'); await p.getByTestId('incident-row').first().waitFor(); } },
  { name: 'incident-detail', open: async (p) => { await p.goto(url + '/incidents?window=168'); await row('incident-row')(p); await p.getByTestId('log-record').first().waitFor(); } },
  { name: 'events', open: async (p) => { await p.goto(url + '/events'); await p.getByTestId('event-row').first().waitFor(); } },
  { name: 'event-detail', open: async (p) => { await p.goto(url + '/events'); await row('event-row')(p); await p.getByTestId('json-tree').first().waitFor(); } },
  { name: 'events-more-filters', open: async (p) => { await p.goto(url + '/events'); await p.getByRole('button', { name: /More filters/ }).click(); } },
  { name: 'events-empty', open: async (p) => { await p.goto(url + '/events?event_name=no.such.event'); await p.getByText('No events match these filters').waitFor(); } },
  { name: 'dead-letters', open: async (p) => { await p.goto(url + '/dead-letters'); await p.getByTestId('event-row').first().waitFor(); } },
  { name: 'dead-letter-detail', open: async (p) => { await p.goto(url + '/dead-letters'); await row('event-row')(p); await p.getByTestId('dead-letter').first().waitFor(); } },
  { name: 'mailbox', open: async (p) => { await p.goto(url + '/mailbox'); await p.getByTestId('mailbox-row').first().waitFor(); } },
  { name: 'mailbox-review', open: async (p) => { await p.goto(url + '/mailbox'); await row('mailbox-row')(p); await p.getByTestId('mailbox-review').waitFor(); } },
  { name: 'mailbox-reject-dialog', open: async (p) => { await p.goto(url + '/mailbox'); await row('mailbox-row')(p); await p.getByTestId('reject-button').click(); await p.getByTestId('decision-dialog').waitFor(); } },
  { name: 'mailbox-approve-dialog', open: async (p) => { await p.goto(url + '/mailbox'); await row('mailbox-row')(p); await p.getByTestId('approve-button').click(); await p.getByTestId('decision-dialog').waitFor(); } },
  { name: 'mailbox-history', open: async (p) => { await p.goto(url + '/mailbox?status=approved'); await p.waitForTimeout(300); } },
  { name: 'agents', open: async (p) => { await p.goto(url + '/agents'); await p.getByTestId('agent-row').first().waitFor(); } },
  { name: 'agent-page', open: async (p) => { await p.goto(url + '/agents/triage-agent'); await p.getByTestId('current-session-link').waitFor(); } },
  { name: 'conversations', open: async (p) => { await p.goto(url + '/conversations'); await p.getByTestId('conversation-row').first().waitFor(); } },
  { name: 'transcript', open: async (p) => { await p.goto(url + '/conversations'); await p.getByTestId('conversation-row').first().locator('td').first().click(); await p.getByTestId('turn').first().waitFor(); } },
  { name: 'transcript-payload', open: async (p) => { await p.goto(url + '/conversations'); await p.getByTestId('conversation-row').first().locator('td').first().click(); await p.getByTestId('turn').first().getByRole('button', { name: 'Request payload' }).click(); await p.getByTestId('json-tree').first().waitFor(); } },
  { name: 'runtime', open: async (p) => { await p.goto(url + '/runtime'); await p.getByTestId('ingress-state').waitFor(); } },
  { name: 'runtime-ingress-dialog', open: async (p) => { await p.goto(url + '/runtime'); await p.getByRole('button', { name: 'Pause ingress…' }).click(); await p.getByTestId('ingress-dialog').waitFor(); } },
  { name: 'runtime-nuke-dialog', open: async (p) => { await p.goto(url + '/runtime'); await p.getByTestId('open-nuke').click(); await p.getByTestId('nuke-preview').waitFor(); } },
  { name: 'heartbeat-details', open: async (p) => { await p.goto(url + '/incidents?window=168'); await p.getByTestId('incident-row').first().waitFor(); await p.getByTestId('heartbeat').focus(); } },
  { name: 'not-found', open: async (p) => { await p.goto(url + '/no-such-screen'); await p.waitForTimeout(300); } },
];

async function call<T>(method: string, params: object): Promise<T> {
  const r = await fetch(`${url}/v1/rpc`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  return ((await r.json()) as { result: T }).result;
}

/** Nothing running or waiting, and the newest event, as text: the same for 10 s means the demo is done. */
async function activity(): Promise<string> {
  const status = await call<{ active_runs: number; pending_deliveries: number }>('runtime.status', {});
  const newest = await call<{ events: { event_id: string }[] }>('event.list', { limit: 1 });
  return `${status.active_runs}/${status.pending_deliveries}/${newest.events[0]?.event_id ?? ''}`;
}

async function startServer() {
  const fresh = !fs.existsSync(dataDir);
  const server = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'apps/server/src/main.ts')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), SWITCHBOARD_PORT: String(port), SWITCHBOARD_DATA_DIR: dataDir, SWITCHBOARD_TOKEN: token, SWITCHBOARD_WEB_DIST: live, SWITCHBOARD_LOG_LEVEL: 'warn', SWITCHBOARD_RATE_LIMIT_PER_S: '0' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  if (fresh) fs.writeFileSync(frozenFile, new Date(Date.now() + 5 * 60_000).toISOString());
  frozen = new Date(fs.readFileSync(frozenFile, 'utf8'));
  if (fresh) {
    // Let the demo scenario finish.
    let last = '';
    for (let stable = 0; stable < 10; ) {
      const now = await activity();
      stable = now === last && now.startsWith('0/0/') ? stable + 1 : 0;
      last = now;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  return server;
}

async function capture(label: string, dist: string) {
  fs.rmSync(live, { force: true });
  fs.symlinkSync(path.resolve(dist), live);
  const outDir = path.join(shots, label);
  fs.mkdirSync(outDir, { recursive: true });
  const server = await startServer();
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'] });
  try {
    for (const scheme of ['light', 'dark'] as const) {
      for (const size of [{ w: 1280, h: 800 }, { w: 390, h: 844 }]) {
        const context = await browser.newContext({ colorScheme: scheme, viewport: { width: size.w, height: size.h }, reducedMotion: 'reduce' });
        const page = await context.newPage();
        await page.clock.setFixedTime(frozen);
        for (const view of views) {
          if (view.signedOut) await context.clearCookies();
          else if ((await context.cookies()).length === 0) {
            const r = await page.request.post(`${url}/v1/auth/login`, { data: { token }, headers: { Origin: url } });
            if (!r.ok()) throw new Error(`login ${r.status()}`);
          }
          try {
            await view.open(page);
            await page.waitForLoadState('networkidle').catch(() => {});
            await page.evaluate(() => document.fonts.ready);
            await page.waitForTimeout(250);
            await page.screenshot({ path: path.join(outDir, `${view.name}-${scheme}-${size.w}.png`), mask: [page.getByTestId('heartbeat')], animations: 'disabled', caret: 'hide' });
          } catch (err) {
            console.error(`${view.name} ${scheme} ${size.w}: ${(err as Error).message.split('\n')[0]}`);
          }
        }
        await context.close();
      }
    }
  } finally {
    await browser.close();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
  }
}

async function compare(a: string, b: string) {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  const page = await browser.newPage();
  const diffDir = path.join(shots, `diff-${a}-${b}`);
  fs.rmSync(diffDir, { recursive: true, force: true });
  fs.mkdirSync(diffDir, { recursive: true });
  let same = 0;
  const differing: string[] = [];
  const names = fs.readdirSync(path.join(shots, a)).filter((f) => f.endsWith('.png')).sort();
  for (const name of names) {
    const fa = path.join(shots, a, name);
    const fb = path.join(shots, b, name);
    if (!fs.existsSync(fb)) {
      differing.push(`${name}: missing in ${b}`);
      continue;
    }
    const ba = fs.readFileSync(fa);
    const bb = fs.readFileSync(fb);
    if (ba.equals(bb)) {
      same++;
      continue;
    }
    // A string, not a function: tsx would wrap a function's inner helpers with __name, which the page lacks.
    const result = (await page.evaluate(`(async () => {
        const load = (src) => new Promise((res) => { const i = new Image(); i.onload = () => res(i); i.src = src; });
        const [ia, ib] = await Promise.all([load(${JSON.stringify(`data:image/png;base64,${ba.toString('base64')}`)}), load(${JSON.stringify(`data:image/png;base64,${bb.toString('base64')}`)})]);
        const w = Math.max(ia.width, ib.width);
        const h = Math.max(ia.height, ib.height);
        const pixels = (img) => { const c = document.createElement('canvas'); c.width = w; c.height = h; const x = c.getContext('2d'); x.drawImage(img, 0, 0); return x.getImageData(0, 0, w, h); };
        const pa = pixels(ia);
        const pb = pixels(ib);
        const out = document.createElement('canvas'); out.width = w; out.height = h;
        const ox = out.getContext('2d'); ox.drawImage(ib, 0, 0); ox.fillStyle = 'rgba(255,255,255,0.7)'; ox.fillRect(0, 0, w, h);
        const od = ox.getImageData(0, 0, w, h);
        let n = 0;
        for (let i = 0; i < pa.data.length; i += 4) {
          if (pa.data[i] !== pb.data[i] || pa.data[i + 1] !== pb.data[i + 1] || pa.data[i + 2] !== pb.data[i + 2]) {
            n++; od.data[i] = 255; od.data[i + 1] = 0; od.data[i + 2] = 0; od.data[i + 3] = 255;
          }
        }
        ox.putImageData(od, 0, 0);
        return { n, size: ia.width + 'x' + ia.height + ' vs ' + ib.width + 'x' + ib.height, png: out.toDataURL('image/png') };
      })()`)) as { n: number; size: string; png: string };
    if (result.n === 0) {
      same++;
      continue;
    }
    fs.writeFileSync(path.join(diffDir, name), Buffer.from(result.png.split(',')[1]!, 'base64'));
    differing.push(`${name}: ${result.n} pixels differ (${result.size})`);
  }
  await browser.close();
  console.log(`${names.length} screenshots: ${same} identical, ${differing.length} differ`);
  for (const d of differing) console.log(`  ${d}`);
}

const [first, second, third] = process.argv.slice(2);
if (first === '--compare') await compare(second!, third!);
else await capture(first!, second!);
