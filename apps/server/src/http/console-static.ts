/**
 * Serves the console's production build with an SPA fallback: any GET that is not an API route
 * and not a file gets index.html, so deep links work.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Hono } from 'hono';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

export function serveConsole(app: Hono<any>, distDir: string): void {
  const root = path.resolve(distDir);
  app.get('*', async (c) => {
    const indexFile = path.join(root, 'index.html');
    if (!fs.existsSync(indexFile)) {
      return c.text('The console is not built. Run `npm run build` (npm start does this for you).', 404);
    }
    let rel: string;
    try {
      rel = decodeURIComponent(new URL(c.req.url).pathname);
    } catch {
      return c.text('Bad request: the path is not valid percent-encoding', 400);
    }
    const file = path.resolve(root, '.' + rel);
    if (file.startsWith(root + path.sep) && fs.existsSync(file) && fs.statSync(file).isFile()) {
      const body = await fs.promises.readFile(file);
      const immutable = rel.startsWith('/assets/');
      return c.body(body, 200, {
        'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
        'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      });
    }
    const html = await fs.promises.readFile(indexFile);
    return c.body(html, 200, {
      'Content-Type': TYPES['.html']!,
      'Cache-Control': 'no-cache',
      'Content-Security-Policy':
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'same-origin',
    });
  });
}
