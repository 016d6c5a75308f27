// Module resolution hooks (see register.mjs): run on the loader thread, so they log to a file.
import fs from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function resolve(specifier, context, nextResolve) {
  const resolved = await nextResolve(specifier, context);
  if (file && resolved.url.includes('/@opentelemetry/')) fs.appendFileSync(file, `${resolved.url}\n`);
  return resolved;
}
