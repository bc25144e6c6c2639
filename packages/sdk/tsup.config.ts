import { defineConfig } from 'tsup';

// ESM + CJS + types. @merma/schema (private) is bundled from its sources; zod and ky stay
// dependencies, so applications share one copy.
export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm', 'cjs'],
  dts: { resolve: ['@merma/schema'] },
  clean: true,
  sourcemap: true,
  target: 'es2022',
  platform: 'neutral',
  noExternal: ['@merma/schema'],
  external: ['zod', 'ky'],
  esbuildOptions(options) {
    options.conditions = ['@merma/source'];
  },
});
