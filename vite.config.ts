/**
 * Builds the operator console (apps/web) into dist/web, which the server serves. In development,
 * `vite` proxies the API to a server on SWITCHBOARD_DEV_API (default http://127.0.0.1:8787); the Host
 * header is kept so the server's same-origin check accepts the browser's cookie.
 */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const api = process.env.SWITCHBOARD_DEV_API ?? 'http://127.0.0.1:8787';

export default defineConfig({
  root: fileURLToPath(new URL('./apps/web', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('./dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    // Styles sit beside their components, but ship as one stylesheet loaded with the page: the
    // cascade order is then the import order (shared styles first, see main.tsx) whatever screen
    // is opened first, and a lazily loaded screen never paints unstyled.
    cssCodeSplit: false,
  },
  server: {
    proxy: {
      '/v1/ws': { target: api.replace(/^http/, 'ws'), ws: true, changeOrigin: false },
      '/v1': { target: api, changeOrigin: false },
    },
  },
});
