import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

/** Where `pnpm dev` sends `/trpc` calls: the Merma server started with `pnpm dev` at the repo root (PORT 3000). */
const apiTarget = 'http://127.0.0.1:3000';

export default defineConfig({
  // The server serves the built app under /dashboard/.
  base: '/dashboard/',
  plugins: [react()],
  resolve: {
    // Read @merma/schema from its sources, as the server's dev mode does: no build needed first.
    conditions: ['@merma/source', ...defaultClientConditions],
  },
  server: {
    proxy: { '/trpc': { target: apiTarget, changeOrigin: false } },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
  },
});
