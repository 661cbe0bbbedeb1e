import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The API server (server/src/main.ts) listens here in development; vite proxies to it so the
// browser sees one origin, exactly as in production where the server serves web/dist.
const apiTarget = `http://127.0.0.1:${process.env.KEEPER_API_PORT ?? '8080'}`;

export default defineConfig({
  plugins: [react()],
  server: {
    proxy: {
      '/api': { target: apiTarget },
      '/ws': { target: apiTarget, ws: true },
    },
  },
  build: {
    outDir: 'dist',
    sourcemap: true,
  },
});
