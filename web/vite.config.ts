import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { precompress } from './build/precompress.js';

// The API server (`npm start`: scripts/start.ts) listens here in development; vite proxies to it so the
// browser sees one origin, exactly as in production where the server serves web/dist.
const apiTarget = `http://127.0.0.1:${process.env.KEEPER_API_PORT ?? '8080'}`;

export default defineConfig({
  plugins: [react(), precompress()],
  server: {
    proxy: {
      '/api': { target: apiTarget },
      '/ws': { target: apiTarget, ws: true },
    },
  },
  build: {
    outDir: 'dist',
    // Maps are written for whoever runs the build (to decode a stack trace), without the
    // sourceMappingURL comment; the server never serves them (server/src/http/staticWeb.ts).
    sourcemap: 'hidden',
    // The polyfill fetches <link rel="modulepreload"> for browsers without it (Safari before 17,
    // Firefox before 115); the app needs the Popover API (Safari 17, Firefox 125) anyway, so every
    // browser it runs in preloads natively and the first page need not carry it.
    modulePreload: { polyfill: false },
    rolldownOptions: {
      output: {
        // Libraries change less often than the app: in chunks of their own they stay cached
        // (immutable, a year) across Keeper upgrades that do not touch them. Only what every page
        // runs on is grouped; a library one view needs (TanStack Virtual for long lists) goes
        // with that view's code, so the first page does not load it.
        codeSplitting: {
          groups: [
            { name: 'framework', test: /node_modules\/(react|react-dom|scheduler|react-router|@tanstack\/(react-query|query-core))\// },
            { name: 'zod', test: /node_modules\/zod\// },
            // Everything else the first page runs before any view (the shell, the socket, sign-in): one
            // chunk, not the twenty small ones a module shared with a lazy view would otherwise get
            // (each gzipped apart: 2.5 KB of the first route, 2026-12-07).
            { name: 'frame', tags: ['$initial'] },
          ],
        },
      },
    },
  },
});
