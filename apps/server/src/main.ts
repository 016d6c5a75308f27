/** Process entry: read config, start the server, print how to reach it, stop cleanly on signals. */
import { createRequire } from 'node:module';
import { BundleError } from '@switchboard/runtime';
import { DataDirInUseError, DatabaseUnreachableError } from '@switchboard/store';
import { ConfigError, loadConfig } from './config';
import { OidcIssuerUnreachableError } from './http/oidc/discovery';
import { createLogger } from './logger';
import { TracingConfigError, startTracing, type Tracing } from './observability/tracing';
import { startServer } from './server';

const SERVER_VERSION = (createRequire(import.meta.url)('../package.json') as { version: string }).version;

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`switchboard: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  for (const { old, current } of config.renamedVariables) logger.warn(`${old} is deprecated: set ${current} instead (read as ${current} this time)`);
  let tracing: Tracing | undefined;
  try {
    tracing = await startTracing(process.env, SERVER_VERSION);
  } catch (err) {
    if (err instanceof TracingConfigError) {
      process.stderr.write(`switchboard: invalid tracing configuration: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  let running;
  try {
    running = await startServer({ config, logger });
  } catch (err) {
    if (err instanceof BundleError) {
      process.stderr.write(`switchboard: bad bundle: ${err.message}\n`);
      process.exit(2);
    }
    if (err instanceof DataDirInUseError) {
      process.stderr.write(`switchboard: ${err.message}\n`);
      process.exit(2);
    }
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      process.stderr.write(`switchboard: ${config.host}:${config.port} is already in use (set PORT to another port)\n`);
      process.exit(2);
    }
    if (err instanceof OidcIssuerUnreachableError) {
      process.stderr.write(`switchboard: ${err.message} (SWITCHBOARD_OIDC_ISSUER)\n`);
      process.exit(2);
    }
    if (err instanceof DatabaseUnreachableError) {
      process.stderr.write(`switchboard: ${err.message} (SWITCHBOARD_DATABASE_URL)\n`);
      process.exit(2);
    }
    throw err;
  }
  const banner = [
    '',
    `Switchboard is running: ${running.url}/`,
    `  bundle ${running.runtime.name} ${running.runtime.bundle.fingerprint}`,
    `  data   ${running.store.location}`,
  ];
  if (running.readerThreads > 0) {
    banner.push(
      config.readerThreadsWhen === 'busy'
        ? `  reads  up to ${running.readerThreads} reader threads beside the main thread, while it is busy`
        : `  reads  ${running.readerThreads} reader threads beside the main thread`,
    );
  }
  if (running.bootstrapToken) {
    banner.push('', `Bootstrap token: ${running.bootstrapToken}`, '  (shown once: paste it into the console sign-in, or send it as "Authorization: Bearer <token>")');
  }
  process.stdout.write(banner.join('\n') + '\n\n');

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    running
      .close()
      // After the server: the spans of its last calls are flushed too.
      .then(() => tracing?.shutdown())
      .then(() => process.exit(0))
      .catch((err: Error) => {
        process.stderr.write(`switchboard: shutdown failed: ${err.message}\n`);
        process.exit(1);
      });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  // Started by `npm start` (scripts/start.mjs) with an IPC channel: when that launcher goes away,
  // however it was stopped, the server stops too instead of holding its port.
  if (process.send) process.on('disconnect', () => stop('launcher exited'));
}

main().catch((err: Error) => {
  process.stderr.write(`switchboard: failed to start: ${err.stack ?? err.message}\n`);
  process.exit(1);
});
