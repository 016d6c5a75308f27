// Preloaded into a server process (NODE_OPTIONS=--import): logs every OpenTelemetry module the
// process resolves, one URL a line, to the file SWITCHBOARD_TEST_MODULE_LOG names.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url, { data: { file: process.env.SWITCHBOARD_TEST_MODULE_LOG } });
