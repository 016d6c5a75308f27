// Finds (or starts) the Docker engine that the managed-container tests run against, and makes
// sure it holds their image. Order: SWITCHBOARD_TEST_DOCKER_SOCKET (default /var/run/docker.sock)
// if an engine answers there; otherwise, when asked to start one, as root with dockerd installed
// (Debian: apt-get install docker.io), `dockerd --storage-driver=vfs --iptables=false --bridge=none`
// in the background (no kernel modules, no iptables, no bridge: the containers run with no network).
// The image (SWITCHBOARD_TEST_DOCKER_IMAGE, default switchboard-busybox:test) is never pulled: when
// the engine lacks it, it is imported from a folder holding a statically linked /bin/busybox
// (Debian: apt-get install busybox-static) and its /bin/sh link. Run as a script it starts the
// engine if needed and prints "socket image", or the reason and exits 1.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

export const DEFAULT_TEST_DOCKER_SOCKET = '/var/run/docker.sock';
export const DEFAULT_TEST_DOCKER_IMAGE = 'switchboard-busybox:test';
const DOCKERD_ARGS = ['--storage-driver=vfs', '--iptables=false', '--bridge=none'];
const DOCKERD_LOG = path.join(os.tmpdir(), 'switchboard-dockerd.log');
const BUSYBOX_CANDIDATES = ['/bin/busybox', '/usr/bin/busybox'];

/** One Engine API call over the Unix socket; rejects on transport failures (no engine there). */
export function engineRequest(socketPath, method, urlPath, body, { timeoutMs = 10_000, contentType = 'application/json' } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(JSON.stringify(body));
    const req = http.request(
      {
        socketPath,
        method,
        path: urlPath,
        headers: { host: 'docker', ...(payload ? { 'content-type': contentType, 'content-length': payload.length } : {}) },
        timeout: timeoutMs,
      },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let parsed = text;
          try {
            parsed = text ? JSON.parse(text) : undefined;
          } catch {
            // a stream of JSON lines (an import's progress) or plain text
          }
          resolve({ status: res.statusCode ?? 0, body: parsed, text });
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(payload);
  });
}

async function engineAnswers(socketPath) {
  try {
    const res = await engineRequest(socketPath, 'GET', '/version', undefined, { timeoutMs: 3_000 });
    return res.status === 200 ? { ok: true } : { ok: false, why: `GET /version answered HTTP ${res.status}` };
  } catch (err) {
    return { ok: false, why: err.code ?? err.message };
  }
}

function onPath(command) {
  return spawnSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).status === 0;
}

/** Starts dockerd in the background (detached: it outlives this process, as the PostgreSQL cluster does) and waits for its socket. */
async function startDockerd(socketPath) {
  if (process.getuid?.() !== 0) return 'dockerd runs as root only, and this is not root';
  if (!onPath('dockerd')) return 'dockerd is not installed (apt-get install -y docker.io)';
  const log = fs.openSync(DOCKERD_LOG, 'a');
  const host = socketPath === DEFAULT_TEST_DOCKER_SOCKET ? [] : [`--host=unix://${socketPath}`];
  const child = spawn('dockerd', [...DOCKERD_ARGS, ...host], { detached: true, stdio: ['ignore', log, log] });
  child.unref();
  fs.closeSync(log);
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if ((await engineAnswers(socketPath)).ok) return undefined;
    if (child.exitCode !== null) return `dockerd exited with code ${child.exitCode}; the end of ${DOCKERD_LOG}:\n${logTail()}`;
    await sleep(250);
  }
  return `dockerd did not answer on ${socketPath} within 60 s; the end of ${DOCKERD_LOG}:\n${logTail()}`;
}

function logTail() {
  try {
    return fs.readFileSync(DOCKERD_LOG, 'utf8').trimEnd().split('\n').slice(-5).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Whether an ELF executable needs no loader (no PT_INTERP program header): it runs in an empty image. */
function isStaticElf(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 64 || buf.readUInt32BE(0) !== 0x7f454c46 || buf[4] !== 2 || buf[5] !== 1) return false;
  const phoff = Number(buf.readBigUInt64LE(0x20));
  const phentsize = buf.readUInt16LE(0x36);
  const phnum = buf.readUInt16LE(0x38);
  for (let i = 0; i < phnum; i++) if (buf.readUInt32LE(phoff + i * phentsize) === 3) return false;
  return true;
}

/** Imports the image from a static busybox: a folder with bin/busybox and bin/sh → busybox, as `docker import`. */
async function importImage(socketPath, image) {
  const busybox = BUSYBOX_CANDIDATES.find((f) => fs.existsSync(f) && isStaticElf(f));
  if (!busybox) return `the engine has no image ${image} and no statically linked busybox is here to import it from (apt-get install -y busybox-static)`;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchboard-busybox-image-'));
  try {
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.copyFileSync(busybox, path.join(dir, 'bin', 'busybox'));
    fs.chmodSync(path.join(dir, 'bin', 'busybox'), 0o755);
    fs.symlinkSync('busybox', path.join(dir, 'bin', 'sh'));
    const tar = spawnSync('tar', ['-C', dir, '-c', '.'], { maxBuffer: 64 * 1024 * 1024 });
    if (tar.status !== 0) return `tar of the image folder failed: ${tar.stderr}`;
    const [repo, tag = 'latest'] = image.split(/:(?=[^:/]+$)/);
    const res = await engineRequest(socketPath, 'POST', `/images/create?fromSrc=-&repo=${encodeURIComponent(repo)}&tag=${encodeURIComponent(tag)}`, tar.stdout, {
      timeoutMs: 60_000,
      contentType: 'application/x-tar',
    });
    if (res.status !== 200 || /"error"/.test(res.text)) return `importing ${image} failed: HTTP ${res.status} ${res.text.slice(0, 300)}`;
    return undefined;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The engine and image for the container tests: `{ socket, image }`, or `{ reason }` saying why
 * there is none. `start`: start dockerd when none answers (test-all and .ci/run; never the tests).
 */
export async function findTestDocker({ start = false } = {}) {
  const socket = process.env.SWITCHBOARD_TEST_DOCKER_SOCKET || DEFAULT_TEST_DOCKER_SOCKET;
  const image = process.env.SWITCHBOARD_TEST_DOCKER_IMAGE || DEFAULT_TEST_DOCKER_IMAGE;
  const answer = await engineAnswers(socket);
  if (!answer.ok) {
    if (!start) return { reason: `no Docker engine answers on ${socket} (${answer.why})` };
    const failed = await startDockerd(socket);
    if (failed) return { reason: `no Docker engine answers on ${socket} (${answer.why}) and starting one failed: ${failed}` };
  }
  let found;
  try {
    found = await engineRequest(socket, 'GET', `/images/${encodeURIComponent(image)}/json`);
  } catch (err) {
    return { reason: `the Docker engine on ${socket} stopped answering: ${err.code ?? err.message}` };
  }
  if (found.status === 404) {
    const failed = await importImage(socket, image);
    if (failed) return { reason: failed };
  } else if (found.status !== 200) {
    return { reason: `looking up image ${image} failed: HTTP ${found.status}` };
  }
  return { socket, image };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const found = await findTestDocker({ start: true });
  if (found.socket) console.log(`${found.socket} ${found.image}`);
  else {
    console.error(found.reason);
    process.exit(1);
  }
}
