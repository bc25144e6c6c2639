import { defineConfig } from 'tsup';

// The server ships as plain JavaScript: the container runs `node dist/main.js`. @merma/schema and
// @merma/signing are bundled in (built from its sources); npm dependencies stay external.
export default defineConfig({
  entry: { main: 'src/main.ts', admin: 'src/admin.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node22',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  splitting: true,
  noExternal: ['@merma/schema', '@merma/signing'],
  esbuildOptions(options) {
    options.conditions = ['@merma/source'];
  },
  banner: { js: '#!/usr/bin/env node' },
});
