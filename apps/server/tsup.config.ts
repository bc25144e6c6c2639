import { defineConfig } from 'tsup';

// The server ships as plain JavaScript: the container runs `node dist/main.js`. @merma/schema and
// @merma/signing are bundled in (built from its sources); npm dependencies stay external, except
// @prisma/client: the generated client needs only its runtime and PostgreSQL's query compiler
// (bundled here, ~5 MB), while installing the package brings its optional peer, the Prisma CLI, with
// Studio and TypeScript (~200 MB of the image). The runtime is CommonJS and calls `require`, which
// an ES module lacks: the banner gives each output file one (createRequire).
export default defineConfig({
  // The forecast pool's thread is an entry of its own: pool.ts starts it from dist/forecast-worker.js.
  entry: { main: 'src/main.ts', admin: 'src/admin.ts', 'forecast-worker': 'src/modules/predict/forecast-worker.ts' },
  format: ['esm'],
  platform: 'node',
  target: 'node22',
  outDir: 'dist',
  clean: true,
  sourcemap: true,
  splitting: true,
  noExternal: ['@merma/schema', '@merma/signing', '@prisma/client'],
  // The embedded database is a development dependency (tsup would bundle it as one): kept external
  // and imported only when DATABASE_URL is unset (db/database.ts), so the production image, which
  // does not install it, never loads it.
  external: ['@electric-sql/pglite', '@electric-sql/pglite-socket'],
  esbuildOptions(options) {
    options.conditions = ['@merma/source'];
  },
  banner: {
    js: "#!/usr/bin/env node\nimport { createRequire as __mermaCreateRequire } from 'node:module';\nconst require = __mermaCreateRequire(import.meta.url);",
  },
});
